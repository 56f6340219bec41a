// What an API key may reach (issue 14). Decided from the matched route's declaration (issue 23:
// declared once, beside the route; the OpenAPI document reads the same declaration), before the
// route runs, so a refused request changes nothing.
import type { Area } from "./schema";
import type { ApiKeyRow } from "./store";

export const KEY_PREFIX = "tl_";
/** 'tl_' + 32 random bytes in base64url (43 characters). */
const KEY_SHAPE = /^tl_[A-Za-z0-9_-]{43}$/;
/** Shown in lists and used to revoke from the command line: 'tl_' + 8 characters. */
export const PREFIX_LENGTH = KEY_PREFIX.length + 8;

export const KEY_MSG = {
  malformed: "The API key is malformed. Send Authorization: Bearer tl_… with the whole key.",
  unknown: "The API key is not valid (it may have been revoked)",
  inQuery: "API keys are accepted only in the Authorization header, never in the address",
  account: "API keys cannot reach account settings or API keys; sign in to the web app for those",
  readOnly: "This API key is read-only",
  onlyLinks: "This API key is limited to links",
  onlyTopics: "This API key is limited to topics",
} as const;

export function newApiKey() {
  const key = KEY_PREFIX + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  return { key, prefix: key.slice(0, PREFIX_LENGTH) };
}

export const isKeyShaped = (s: string) => KEY_SHAPE.test(s);

/**
 * What API keys may do with one operation, from the operation's own declaration beside its
 * route (src/shared/apiOperations.ts: `auth` and `keyArea`): null when no key may (a session-only
 * operation, or one that is not declared at all); else the area a key limited to an area must
 * be limited to (null: only keys not limited to an area reach it). The scope follows from the
 * method: a read key may GET (and HEAD), every other method needs read-write.
 */
export type KeyReach = { area: Area | null } | null;

/** The part of an operation's declaration that decides a key's reach. */
export type KeyDeclaration = { method: string; path: string; auth?: "user" | "session" | "none"; keyArea?: Area };

export const reachOf = (op: KeyDeclaration): KeyReach => (op.auth === "user" ? { area: op.keyArea ?? null } : null);

/** The scope a key needs for a method. */
export const scopeFor = (method: string) => (method === "GET" || method === "HEAD" ? ("read" as const) : ("read-write" as const));

// A group's root is mounted as "/api/links/" and declared either way.
const routeKey = (method: string, route: string) => `${method === "HEAD" ? "GET" : method} ${route.length > 1 ? route.replace(/\/$/, "") : route}`;

/**
 * The enforcement side of the declarations: (method, route as the router names it) → reach.
 * A route with no declaration admits no key, so an undocumented route fails closed.
 */
export function keyReachTable(ops: readonly KeyDeclaration[]) {
  const table = new Map<string, KeyReach>();
  for (const op of ops) table.set(routeKey(op.method, op.path), reachOf(op));
  return (method: string, route: string): KeyReach => table.get(routeKey(method, route)) ?? null;
}

export type KeyReachOf = ReturnType<typeof keyReachTable>;

/** Why this key may not make this request (a 403 message), or null when it may. */
export function keyRefusal(key: Pick<ApiKeyRow, "scope" | "only_area">, reach: KeyReach, method: string): string | null {
  // Account routes (who you are, the plan, the keys themselves, webhooks): a leaked key must not
  // mint more keys, outlive its revocation through a session, or read the signed event stream.
  if (reach === null) return KEY_MSG.account;
  if (key.only_area && reach.area !== key.only_area) return key.only_area === "links" ? KEY_MSG.onlyLinks : KEY_MSG.onlyTopics;
  if (key.scope === "read" && scopeFor(method) !== "read") return KEY_MSG.readOnly;
  return null;
}

// Names a client might use to put a key in the address, where proxies and logs keep it.
const QUERY_NAMES = new Set(["api_key", "apikey", "api-key", "access_token", "key", "token"]);

/** True when the address carries what looks like an API key. */
export function keyInQuery(url: URL) {
  for (const [name, value] of url.searchParams) {
    if (QUERY_NAMES.has(name.toLowerCase()) || value.startsWith(KEY_PREFIX)) return true;
  }
  return false;
}
