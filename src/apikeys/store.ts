// The only SQL for API keys. Keys are looked up by the sha256 of the whole key (they are 256
// random bits, so a fast hash is enough); ownership is inside every other WHERE.
import type { Db } from "../db/open";
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

export function apiKeysStore(db: Db) {
  const q = {
    insert: db.prepare(`INSERT INTO api_keys (user_id, name, prefix, key_hash, scope, only_area, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${COLS}`),
    list: db.prepare(`SELECT ${COLS} FROM api_keys WHERE user_id = ? ORDER BY created_at DESC, id DESC`),
    byHash: db.prepare(`SELECT ${COLS} FROM api_keys WHERE key_hash = ?`),
    touch: db.prepare("UPDATE api_keys SET last_used_at = ? WHERE id = ?"),
    revoke: db.prepare("DELETE FROM api_keys WHERE id = ? AND user_id = ? RETURNING id"),
    byPrefix: db.prepare(`SELECT ${COLS} FROM api_keys WHERE user_id = ? AND prefix = ?`),
  };
  return {
    create: (userId: number, f: { name: string; prefix: string; hash: string; scope: Scope; only: Area | null }) =>
      q.insert.get(userId, f.name, f.prefix, f.hash, f.scope, f.only, nowIso()) as ApiKeyRow,
    list: (userId: number) => q.list.all(userId) as ApiKeyRow[],
    byHash: (hash: string) => q.byHash.get(hash) as ApiKeyRow | null,
    touch: (id: number, at: string) => q.touch.run(at, id),
    revoke: (id: number, userId: number) => q.revoke.get(id, userId) !== null,
    byPrefix: (userId: number, prefix: string) => q.byPrefix.all(userId, prefix) as ApiKeyRow[],
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
