// A link's click pages on a real PostgreSQL 15 (a throwaway cluster): read from the index
// link_analytics (link_id, id), never by walking the primary key from the newest click. A link
// with most of the clicks looks to the planner as if nearly every row were its own; when the
// newest clicks are another link's, that walk skipped them all (0.3–0.4 s a page at 10M clicks,
// 4.7 s for a CSV page under a generic plan). Both plans the server may use are checked.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startCluster, type PgCluster } from "../../scripts/lib/pgcluster";
import { type Database, pgDatabase, toPostgres } from "../db/database";
import { migratePg, openPg } from "../db/pg";
import { analyticsStore, clicksOf } from "./store";

let cluster: PgCluster;
let db: Database;
let big = 0;

beforeAll(async () => {
  cluster = await startCluster();
  const pool = openPg(await cluster.createDatabase("pages"), { max: 2, bigint: true });
  await migratePg(pool);
  db = pgDatabase(pool);
  const at = "2026-01-01T00:00:00.000Z";
  const user = await db.get<{ id: number }>("INSERT INTO users (username, password_hash, email, created_at, updated_at) VALUES ('p', 'x', 'p@example.test', ?1, ?1) RETURNING id", at);
  const link = (code: string) => db.get<{ id: number }>("INSERT INTO short_links (user_id, short_code, original_url, title, created_at, updated_at) VALUES (?1, ?2, 'https://example.com/', 't', ?3, ?3) RETURNING id", user!.id, code, at);
  big = (await link("big"))!.id;
  const other = (await link("other"))!.id;
  // Other links with a few clicks each, as most links have: the planner counts the links.
  await db.run("INSERT INTO short_links (user_id, short_code, original_url, title, created_at, updated_at) SELECT ?1, 's' || g, 'https://example.com/', 't', ?2, ?2 FROM generate_series(1, 500) g", user!.id, at);
  await db.run("INSERT INTO link_analytics (link_id, timestamp) SELECT l.id, ?1 FROM short_links l, generate_series(1, 4) WHERE l.short_code LIKE 's%'", at);
  // The big link's clicks first, then newer ones of the other link: the shape that misled the planner.
  await db.run("INSERT INTO link_analytics (link_id, timestamp) SELECT ?1, ?2 FROM generate_series(1, 20000)", big, at);
  await db.run("INSERT INTO link_analytics (link_id, timestamp) SELECT ?1, ?2 FROM generate_series(1, 5000)", other, at);
  await db.run("ANALYZE link_analytics");
}, 60_000);

afterAll(async () => {
  await db?.close();
  await cluster?.stop();
}, 30_000);

for (const mode of ["force_generic_plan", "force_custom_plan"]) {
  test(`a page of the busiest link's clicks is an index range of (link_id, id), under ${mode}`, async () => {
    const { text } = toPostgres(clicksOf(db, "id, timestamp", "DESC", "?3", "$id < ?2"));
    const plan = await db.tx(async (q) => {
      await q.run(`SET LOCAL plan_cache_mode = ${mode}`);
      await q.run(`PREPARE page_${mode}(bigint, bigint, int) AS ${text}`);
      const rows = await q.all<{ "QUERY PLAN": string }>(`EXPLAIN EXECUTE page_${mode}(${big}, ${Number.MAX_SAFE_INTEGER}, 25)`);
      await q.run(`DEALLOCATE page_${mode}`);
      return rows.map((r) => r["QUERY PLAN"]).join("\n");
    });
    expect(plan).toContain("using link_analytics_link_id on link_analytics");
    expect(plan).not.toContain("Merge");
    expect(plan).not.toMatch(/Scan Backward using link_analytics_pkey/);
  });
}

test("the page itself: the link's newest clicks below the bound, newest first", async () => {
  const clicks = analyticsStore(db);
  const first = await clicks.page(big, 25, Number.MAX_SAFE_INTEGER);
  expect(first).toHaveLength(25);
  const ids = first.map((c) => c.id);
  expect(ids).toEqual([...ids].sort((a, b) => b - a));
  const next = await clicks.page(big, 25, ids[ids.length - 1]!);
  expect(next[0]!.id).toBeLessThan(ids[ids.length - 1]!);
  // The other link's clicks are all newer: none of them is on the big link's page.
  const newest = await db.get<{ id: number }>("SELECT MAX(id) AS id FROM link_analytics WHERE link_id = ?", big);
  expect(ids[0]).toBe(newest!.id);
});
