// A link's destination: the one check every destination passes (a link's own, and a smart
// link's fallback, rule and split URLs). Apart from schema.ts so that smart links' schema can use
// it while the links' bodies carry smart settings, with no import cycle between the two.
import * as v from "valibot";

export const MAX_URL_LENGTH = 2048;

export const URL_MSG = {
  url: "Please enter a valid URL",
  urlLength: "URL must be at most 2,048 characters",
  urlScheme: "Only http:// and https:// links can be shortened",
  urlSpaces: "URL must not contain spaces or control characters",
  urlCredentials: "Links with a username or password in them are not allowed",
  urlOwn: "Links to our own short domains cannot be shortened (that would make a redirect loop)",
} as const;

// Any C0/C1 control character or whitespace inside the URL: browsers silently drop some of
// them ("java\tscript:"), which is exactly how filters get bypassed, so refuse them all.
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f-\u009f\u00a0\u1680\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff]/;

/**
 * Checks a destination and returns the reason it is refused, or null. `ownHosts` (server
 * only) are the hosts this instance answers on: a link back to them would loop.
 */
export function destinationProblem(raw: string, ownHosts: string[] = []): string | null {
  if (raw.length > MAX_URL_LENGTH) return URL_MSG.urlLength;
  if (CONTROL_OR_SPACE.test(raw)) return URL_MSG.urlSpaces;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return URL_MSG.url;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return URL_MSG.urlScheme;
  // "http:example.com" and "http:/example.com" parse, but are not what a person typed as a link.
  if (!/^https?:\/\//i.test(raw)) return URL_MSG.url;
  if (!u.hostname) return URL_MSG.url;
  // "http://@host" and "http://user:@host" carry (empty) credentials the URL object drops.
  const authority = raw.replace(/^https?:\/\//i, "").split(/[/?#\\]/)[0] ?? "";
  if (u.username || u.password || authority.includes("@")) return URL_MSG.urlCredentials;
  if (u.href.length > MAX_URL_LENGTH) return URL_MSG.urlLength;
  const hostname = u.hostname.toLowerCase().replace(/\.+$/, "");
  const host = u.port ? `${hostname}:${u.port}` : hostname;
  for (const own of ownHosts) {
    const o = own.toLowerCase();
    // An own host given without a port owns that name on every port.
    if (host === o || (!o.includes(":") && hostname === o) || (o.includes(":") && !u.port && defaultPortHost(u, o) === o)) {
      return URL_MSG.urlOwn;
    }
  }
  return null;
}

// "example.com:443" as the configured host matches "https://example.com/" (default port elided).
function defaultPortHost(u: URL, own: string) {
  const port = u.protocol === "https:" ? "443" : "80";
  return `${u.hostname.toLowerCase().replace(/\.+$/, "")}:${port}` === own ? own : "";
}

export const text = (what: string) => v.optional(v.string(`${what} must be text`), "");

// A host name with at least one dot (any script), an optional port, then a path or nothing.
const BARE_HOST = /^(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+[\p{L}\p{N}-]{2,}\.?(?::\d{1,5})?(?:[/?#]|$)/u;

/**
 * "example.com/page" as typed is meant as a web address: https:// is put in front, as Dub and
 * Shlink do. Only for text with no scheme that starts with a dotted host name, so
 * "javascript:…", "data:…" or "mailto:…" are never turned into something else.
 */
export const withScheme = (s: string) => (!/^[a-z][a-z0-9+.-]*:/i.test(s) || /^[^:/?#]+\.[^:/?#]+:\d/.test(s)) && BARE_HOST.test(s) ? `https://${s}` : s;

export const OriginalUrl = v.pipe(
  text("URL"),
  v.trim(),
  v.nonEmpty(URL_MSG.url),
  v.transform(withScheme),
  v.check((s) => destinationProblem(s) === null, (issue) => destinationProblem(String(issue.input)) ?? URL_MSG.url),
);

