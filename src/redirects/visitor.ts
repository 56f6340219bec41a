// What a redirect reads of its visitor from the request, beside the agent: the visitor cookie
// and a trusted proxy's location headers. One reading for the redirect and the rule simulator's
// "this browser, now" (src/smart/routes.ts), so the two cannot see the same visitor differently.
import { readCookie } from "../http/auth";

export const VISITOR_COOKIE = "tl_vid";
const VISITOR_ID = /^[A-Za-z0-9_-]{16,40}$/;

/** The visitor id of the request's cookie, or null (none, or not one we mint). */
export function visitorIdOf(request: Request): string | null {
  const id = readCookie(request, VISITOR_COOKIE) ?? null;
  return id !== null && VISITOR_ID.test(id) ? id : null;
}

export const NO_PLACE = { country: null, city: null } as const;

/** Location from a trusted proxy's CDN headers (PRODUCT.md: believed only from TRUSTED_PROXIES). */
export function trustedPlace(h: Headers) {
  const rawCountry = h.get("cf-ipcountry") ?? h.get("x-vercel-ip-country") ?? h.get("cloudfront-viewer-country");
  const rawCity = h.get("cf-ipcity") ?? h.get("x-vercel-ip-city") ?? h.get("cloudfront-viewer-city");
  const country = rawCountry && /^[A-Za-z]{2}$/.test(rawCountry) && !/^(xx|t1)$/i.test(rawCountry) ? rawCountry.toUpperCase() : null;
  return { country, city: rawCity ? cityFromHeader(rawCity) : null };
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A city as a CDN sends it. Cloudflare's CF-IPCity carries raw UTF-8 bytes, and header values
 * are read one byte per character (Latin-1), so "São Paulo" arrived as "SÃ£o Paulo": a value
 * whose characters all fit in a byte is decoded again as UTF-8 when those bytes are valid
 * UTF-8 (a real Latin-1 "Zürich", 0xFC alone, is not, and stays as sent). Vercel's header is
 * percent-encoded UTF-8. Controls are dropped; 100 characters at most.
 */
export function cityFromHeader(raw: string): string | null {
  let city = raw;
  if (/[\u0080-\u00ff]/.test(city) && !/[^\u0000-\u00ff]/.test(city)) {
    try {
      city = utf8.decode(Uint8Array.from(city, (c) => c.charCodeAt(0)));
    } catch {
      // Not UTF-8: the bytes were Latin-1 after all.
    }
  }
  if (/%[0-9a-f]{2}/i.test(city)) {
    try {
      city = decodeURIComponent(city);
    } catch {
      // A literal % in a name.
    }
  }
  return city.replace(/[\u0000-\u001f\u007f-\u009f]/g, "").trim().slice(0, 100) || null;
}
