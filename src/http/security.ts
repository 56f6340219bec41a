import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { forbidden } from "./errors";

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

/** The visitor's IP: X-Forwarded-For is believed only from a trusted proxy (TRUSTED_PROXIES). */
export function clientIp(ctx: AppContext, request: Request, server: ServerLike): string {
  const peer = normaliseIp(server?.requestIP?.(request)?.address ?? "");
  if (peer && ctx.config.trustedProxies.includes(peer)) {
    const fwd = request.headers.get("x-forwarded-for");
    if (fwd) {
      const first = fwd.split(",")[0]!.trim();
      if (first) return normaliseIp(first);
    }
  }
  return peer || "unknown";
}

export function normaliseIp(ip: string) {
  return ip.startsWith("::ffff:") ? ip.slice(7) : ip;
}

/** Headers every response carries (a route may choose its own referrer-policy). */
export const BASE_SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
  "x-frame-options": "DENY",
} as const;

/** Adds BASE_SECURITY_HEADERS to every response the framework makes. */
export function securityHeaders(ctx: AppContext) {
  return new Elysia({ name: "security-headers", seed: ctx.instanceId }).onAfterHandle({ as: "global" }, ({ set }) => {
    Object.assign(set.headers, BASE_SECURITY_HEADERS);
  });
}
