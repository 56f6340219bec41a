import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { forbidden, notFound } from "../shared/errors";
import { PageError } from "./errors";
import { BASE_SECURITY_HEADERS } from "./headers";
import { ipv4Int, ipv6Words, isIp, limitKey, normaliseIp, parseProxyEntry, prefixMatch } from "./ip";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * CSRF defence: a state-changing /api request that carries an Origin must come from the app
 * itself (PUBLIC_URL, or the host the request was sent to). Requests without Origin are not
 * from a browser form or fetch, which always send one on POST/PUT/DELETE.
 */
export function originGuard(ctx: AppContext) {
  return new Elysia({ name: "origin-guard", seed: ctx.instanceId }).onTransform({ as: "global" }, ({ request }) => {
    // onTransform (not onRequest) runs before body validation yet keeps Bun's native static
    // routes enabled, which Elysia turns off when any onRequest hook exists.
    if (SAFE.has(request.method)) return;
    const path = new URL(request.url).pathname;
    if (!path.startsWith("/api/")) return;
    const origin = request.headers.get("origin");
    if (origin === null) return;
    // An API key's request (issue 14) carries no cookie: a cross-site page cannot make the
    // browser attach a key, so there is no ambient credential for this check to protect.
    // With a cookie beside it, the check still applies.
    if (/^\s*Bearer\s/i.test(request.headers.get("authorization") ?? "") && !request.headers.has("cookie")) return;
    let originHost: string;
    try {
      originHost = new URL(origin).host.toLowerCase();
    } catch {
      throw forbidden("Cross-site request refused");
    }
    const host = (request.headers.get("host") ?? "").toLowerCase();
    if (origin === ctx.config.publicUrl) return;
    // Same host as addressed, and that host is one of ours: a DNS-rebinding page at
    // evil.example reaching this port sends Host: evil.example, which is not.
    if (originHost === host && isOwnHost(ctx, host)) return;
    throw forbidden("Cross-site request refused");
  });
}

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/;

/** This instance's own names (dashboard, both short domains) and loopback for local use. */
export function isOwnHost(ctx: AppContext, host: string) {
  const c = ctx.config;
  return host === c.appHost || host === c.shortDomain || host === c.brandDomain || LOOPBACK.test(host);
}

type ServerLike = { requestIP?: (r: Request) => { address: string } | null } | null | undefined;

/** TRUSTED_PROXIES, parsed once per config: exact addresses in a Set, CIDR ranges as prefixes. */
type ProxyTrust = { exact: Set<string>; v4: { base: number; bits: number }[]; v6: { words: number[]; bits: number }[] };
const trustByConfig = new WeakMap<object, ProxyTrust>();

export { normaliseIp };

function proxyTrust(config: AppContext["config"]): ProxyTrust {
  let t = trustByConfig.get(config);
  if (t) return t;
  t = { exact: new Set(), v4: [], v6: [] };
  for (const entry of config.trustedProxies) {
    const p = parseProxyEntry(entry);
    if (!p) continue; // config.ts refuses bad entries at boot
    if ((p.kind === "v4" && p.bits === 32) || (p.kind === "v6" && p.bits === 128)) t.exact.add(normaliseIp(entry).toLowerCase());
    if (p.kind === "v4" && p.bits === 32) continue;
    if (p.kind === "v4") t.v4.push({ base: p.base, bits: p.bits });
    else t.v6.push({ words: p.words, bits: p.bits });
  }
  trustByConfig.set(config, t);
  return t;
}

function isTrusted(t: ProxyTrust, ip: string) {
  if (t.exact.has(ip)) return true;
  if (ip.includes(":")) {
    if (t.v6.length === 0) return false;
    const w = ipv6Words(ip);
    return w !== null && t.v6.some((r) => prefixMatch(w, r.words, r.bits));
  }
  if (t.v4.length === 0) return false;
  const n = ipv4Int(ip);
  // `>>> 0` keeps the comparison unsigned; a /0 mask would be 1 << 32 === 1, hence the guard.
  return n !== null && t.v4.some((r) => r.bits === 0 || (n ^ r.base) >>> (32 - r.bits) === 0);
}

/**
 * Who sent the request. The peer (the TCP connection's address) is the client unless it is a
 * trusted proxy (TRUSTED_PROXIES); then X-Forwarded-For is walked from the RIGHT, skipping
 * trusted proxies, and the first address that is not one is the client. Entries to its left
 * were written by the client itself and prove nothing (a leftmost entry is free to forge:
 * nginx's $proxy_add_x_forwarded_for appends to whatever the client sent). `viaTrustedProxy`
 * says whether the peer is trusted, which is also the condition for believing CDN location
 * headers. Hot path (every redirect): no work beyond a Set lookup unless the peer is trusted.
 */
export function clientAddress(ctx: AppContext, request: Request, server: ServerLike): { ip: string | null; viaTrustedProxy: boolean } {
  const peer = normaliseIp(server?.requestIP?.(request)?.address ?? "");
  if (peer === "") return { ip: null, viaTrustedProxy: false };
  // No TRUSTED_PROXIES (the default): the peer is the client, nothing more to look at.
  if (ctx.config.trustedProxies.length === 0) return { ip: peer, viaTrustedProxy: false };
  const trust = proxyTrust(ctx.config);
  if (!isTrusted(trust, peer)) return { ip: peer, viaTrustedProxy: false };
  const fwd = request.headers.get("x-forwarded-for");
  if (!fwd) return { ip: peer, viaTrustedProxy: true };
  const hops = fwd.split(",");
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normaliseIp(hops[i]!.trim());
    // A malformed hop ends the walk: everything from here leftwards is unverifiable, so the
    // last trusted hop we reached is the best-known client.
    if (!isIp(hop)) break;
    client = hop;
    if (!isTrusted(trust, hop)) break;
  }
  return { ip: client, viaTrustedProxy: true };
}

/**
 * The client's address for per-address limits (IPv6 counted per /64). Null for an in-process
 * request (`app.handle` with no server: tests, the CLI), which no network client can make;
 * "unknown" for a socket that has no address any more, so those still share one limit.
 */
export function clientIp(ctx: AppContext, request: Request, server: ServerLike): string | null {
  if (!server) return null;
  return limitKey(clientAddress(ctx, request, server).ip ?? "unknown");
}

// Stated in headers.ts (imported by errors.ts too, which this file imports).
export { BASE_SECURITY_HEADERS } from "./headers";

/** Adds BASE_SECURITY_HEADERS to every response a handler makes (errorResponse adds its own). */
export function securityHeaders(ctx: AppContext) {
  return new Elysia({ name: "security-headers", seed: ctx.instanceId }).onAfterHandle({ as: "global" }, ({ set }) => {
    Object.assign(set.headers, BASE_SECURITY_HEADERS);
  });
}

const decodable = (s: string) => {
  try {
    decodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
};

/**
 * A path segment with a malformed escape (/%ff, /abc%ZZ, /l/%) reaches a route as a null
 * param, Elysia's decoder having given up, and handlers would take null for a code or a name;
 * a wildcard (the web app's /*) gets the raw text, which the browser's router would then fail
 * to decode. Such a path names nothing: 404 before any handler runs, in the one error shape
 * under /api and as the static 'Page Not Found' page elsewhere (a person typed or followed it).
 * (The redirect fast lane needs no check: Bun's router hands it U+FFFD for a bad escape, which
 * no short code contains, so those paths fall through to the app and end here.)
 */
export function malformedPaths(ctx: AppContext, notFoundPage: () => Response) {
  return new Elysia({ name: "malformed-paths", seed: ctx.instanceId }).onTransform({ as: "global" }, ({ params, path }) => {
    for (const key in params) {
      const value = (params as Record<string, string | null>)[key];
      if (value === null || (key === "*" && value.includes("%") && !decodable(value))) {
        // A script calling /api gets the one error shape; a person's address bar gets a page.
        if (path.startsWith("/api/")) throw notFound("Not found");
        throw new PageError(notFoundPage);
      }
    }
  });
}
