// Test support for the click recorder and writers on either backend (TEST_BACKEND): a migrated
// database (src/test/helpers.ts setup), users and links made through the real stores, a
// recorder of its own on the app's database, raw clicks, and a way to stall the click writer.
import type { SQL } from "bun";
import { openDb } from "../db/open";
import { openPg } from "../db/pg";
import { linksStore } from "../links/store";
import { onPostgres, setup, testCluster } from "../test/helpers";
import { ClickRecorder } from "./recorder";
import type { RawClick } from "./clickMessages";

// The throwaway cluster starts (initdb, a migrated template: seconds) when a test file loads
// this, not inside its first test's time limit.
if (onPostgres) await testCluster();

export const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0";

export async function clickFixture(env: Record<string, string> = {}) {
  const t = await setup(env);
  const db = t.database;
  const links = linksStore(db);
  const now = new Date().toISOString();
  const user = async (name: string) =>
    (await db.get<{ id: number }>("INSERT INTO users (username, password_hash, email, created_at, updated_at) VALUES (?, 'x', ?, ?, ?) RETURNING id", name, `${name}@example.test`, now, now))!.id;
  const make = (userId: number, code: string, tracker: "main" | "brand" = "main") =>
    links.create(userId, tracker, { shortCode: code, originalUrl: `https://example.com/${code}`, title: code, description: "", expiresAt: null });
  const recorders: ClickRecorder[] = [];
  /** A recorder (and, at its first click, a click worker) on this database. */
  const recorder = (opts: { ipStorage?: "truncated" | "full" | "none"; maxBacklog?: number; foldEvery?: number; retentionDays?: number; detailPerMinute?: number } = {}) => {
    const r = new ClickRecorder(db, {
      ipStorage: opts.ipStorage ?? "none",
      geoipDb: null,
      maxBacklog: opts.maxBacklog,
      foldEvery: opts.foldEvery,
      databaseUrl: t.config.databaseUrl,
      retentionDays: opts.retentionDays,
      detailPerMinute: opts.detailPerMinute,
    });
    recorders.push(r);
    return r;
  };
  let at = Date.parse("2026-11-01T10:00:00.000Z");
  const click = (linkId: number, visitorId: string | null, newVisitor = false, extra: Partial<RawClick> = {}): RawClick => ({
    linkId,
    at: (at += 1000),
    userAgent: FIREFOX,
    referrer: null,
    ip: "8.8.8.8",
    visitorId,
    newVisitor,
    source: "direct",
    country: null,
    city: null,
    ...extra,
  });
  const n = async (sql: string, ...params: (string | number)[]) => (await db.get<{ n: number }>(sql, ...params))!.n;
  /** Click rows of a link. */
  const rows = (linkId: number) => n("SELECT COUNT(*) AS n FROM link_analytics WHERE link_id = ?", linkId);
  /** The link's click count. */
  const count = (linkId: number) => n("SELECT COALESCE((SELECT clicks FROM link_click_counts WHERE link_id = ?), 0) AS n", linkId);
  const notices = async () => (await db.all<{ message: string }>("SELECT message FROM notifications WHERE kind = 'link-clicks' ORDER BY id")).map((r) => r.message);
  const done = async () => {
    for (const r of recorders) await r.stop();
  };
  return { t, db, links, user, make, recorder, click, n, rows, count, notices, done };
}

/**
 * Stalls every click writer of the database until `release()`, as a slow disk or a long lock
 * would: on SQLite another connection holds the write lock; on PostgreSQL another session holds
 * the fold mark's row, which each click-writing transaction locks first (pgWriterStore.ts).
 */
export async function stallClickWriters(f: { dir: string; databaseUrl: string | null }): Promise<{ release(): Promise<void> }> {
  if (!onPostgres) {
    const blocker = openDb(f.dir);
    blocker.exec("BEGIN IMMEDIATE");
    return {
      async release() {
        if (blocker.inTransaction) blocker.exec("COMMIT");
        blocker.close();
      },
    };
  }
  const pool: SQL = openPg(f.databaseUrl!, { max: 1 });
  const conn = await pool.reserve();
  await conn`BEGIN`;
  await conn`SELECT folded FROM click_fold WHERE id = 1 FOR UPDATE`;
  return {
    async release() {
      await conn`COMMIT`;
      conn.release();
      await pool.close();
    },
  };
}
