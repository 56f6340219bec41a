// What an API key may reach (issue 14). Decided from the method and path alone, before the
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

// Account routes: who you are, signing out, the plan, and the keys themselves. A leaked key
// must not be able to mint more keys or outlive its revocation through a session.
// Webhooks too: an endpoint receives every event of the account, signed with a secret shown here;
// and the live updates stream, which carries them all as well.
const ACCOUNT = /^\/api\/(user|logout|login|register|api-keys|subscription|webhooks|events)(\/|$)/;
// Tags label links (both trackers), a link's public stats page (/api/stats/:linkId/public) is the
// link's, and UTM templates build links' destinations: all are the links area's.
const LINKS = /^\/api\/(links|pic-drift-links|tags|stats|utm-templates)(\/|$)/;
const TOPICS = /^\/api\/(topics|topic|share|shared-topics|sharing-users|sharing-members|invites)(\/|$)|^\/api\/[^/]+\/[^/]+\/titles(\/|$)/;

function area(path: string): Area | "other" {
  if (LINKS.test(path)) return "links";
  if (TOPICS.test(path)) return "topics";
  return "other";
}

/** Why this key may not make this request (a 403 message), or null when it may. */
export function keyRefusal(key: Pick<ApiKeyRow, "scope" | "only_area">, method: string, path: string): string | null {
  if (ACCOUNT.test(path)) return KEY_MSG.account;
  if (key.only_area && area(path) !== key.only_area) return key.only_area === "links" ? KEY_MSG.onlyLinks : KEY_MSG.onlyTopics;
  if (key.scope === "read" && method !== "GET" && method !== "HEAD") return KEY_MSG.readOnly;
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
