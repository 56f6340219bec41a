// The only SQL for API keys. Keys are looked up by the sha256 of the whole key (they are 256
// random bits, so a fast hash is enough); ownership is inside every other WHERE.
import type { Database } from "../db/database";
import { nowIso } from "../shared/time";
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
    create: async (userId: number, f: { name: string; prefix: string; hash: string; scope: Scope; only: Area | null }) =>
      (await db.get<ApiKeyRow>(
        `INSERT INTO api_keys (user_id, name, prefix, key_hash, scope, only_area, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${COLS}`,
        userId, f.name, f.prefix, f.hash, f.scope, f.only, nowIso(),
      ))!,
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
