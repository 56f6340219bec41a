// The only SQL for API keys. Keys are looked up by the sha256 of the whole key (they are 256
// random bits, so a fast hash is enough); ownership is inside every other WHERE.
import type { Database } from "../db/database";
import { nowIso } from "../shared/time";
import { QUOTA_MSG, assertRoom } from "../plans/quotas";
import type { ApiKeyView, Area, Scope } from "./schema";

export type ApiKeyRow = {
  id: number;
  user_id: number;
  name: string;
  prefix: string;
  scope: Scope;
  only_area: Area | null;
  created_at: string;
  last_used_at: string | null;
};

const COLS = "id, user_id, name, prefix, scope, only_area, created_at, last_used_at";

export function apiKeysStore(db: Database) {
  return {
    /**
     * A new key; QUOTA_EXCEEDED when the user already holds `cap` (MAX_API_KEYS_PER_USER; 0,
     * the CLI's: none). Counted in the insert's transaction, the user's row locked first on
     * PostgreSQL so two creates at once cannot both take the last place.
     */
    create: (userId: number, f: { name: string; prefix: string; hash: string; scope: Scope; only: Area | null }, cap = 0) =>
      db.tx(async (q) => {
        if (cap > 0) {
          if (q.dialect === "postgres") await q.get("SELECT 1 AS x FROM users WHERE id = ? FOR NO KEY UPDATE", userId);
          assertRoom((await q.get<{ n: number }>("SELECT COUNT(*) AS n FROM api_keys WHERE user_id = ?", userId))!.n, cap, QUOTA_MSG.apiKeys);
        }
        return (await q.get<ApiKeyRow>(
          `INSERT INTO api_keys (user_id, name, prefix, key_hash, scope, only_area, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${COLS}`,
          userId, f.name, f.prefix, f.hash, f.scope, f.only, nowIso(),
        ))!;
      }),
    list: (userId: number) => db.all<ApiKeyRow>(`SELECT ${COLS} FROM api_keys WHERE user_id = ? ORDER BY created_at DESC, id DESC`, userId),
    byHash: (hash: string) => db.get<ApiKeyRow>(`SELECT ${COLS} FROM api_keys WHERE key_hash = ?`, hash),
    touch: (id: number, at: string) => db.run("UPDATE api_keys SET last_used_at = ? WHERE id = ?", at, id),
    revoke: async (id: number, userId: number) => (await db.get("DELETE FROM api_keys WHERE id = ? AND user_id = ? RETURNING id", id, userId)) !== null,
    byPrefix: (userId: number, prefix: string) => db.all<ApiKeyRow>(`SELECT ${COLS} FROM api_keys WHERE user_id = ? AND prefix = ?`, userId, prefix),
  };
}

export const toView = (r: ApiKeyRow): ApiKeyView => ({
  id: r.id,
  name: r.name,
  prefix: r.prefix,
  scope: r.scope,
  only: r.only_area,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
});
