// The analytics series' cost (issue 23): one link whose roll-ups hold every hour of a year
// (8,784 'hour' rows, 366 'day' rows, 40 clicks an hour, as the click writer leaves them), and
// GET …/analytics timed through the real app for the widest ranges a client may ask: 31 days by
// hour, 366 days by day, in UTC and in a zone. SQLite (a temp file); prints each figure.
// Not part of `npm test`.
//
//   node_modules/.bin/bun run scripts/bench/series.ts          # BENCH_RUNS=200 per case
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import { openDatabase } from "../../src/db/connect";

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const dir = mkdtempSync(join(tmpdir(), "threadlink-bench-series-"));
const config = loadConfig({ DATA_DIR: dir, PUBLIC_URL: "http://localhost:3000", HEAVY_RATE_LIMIT: "0" });
const { db } = await openDatabase(config);
const { app, ctx } = await createApp({ db, config });
const call = (method: string, path: string, cookie = "", body?: unknown) =>
  app.handle(new Request(`http://localhost:3000${path}`, { method, headers: { host: "localhost:3000", cookie, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) }));

const reg = await call("POST", "/api/register", "", { username: "bench", password: "correct horse battery", email: "bench@example.test" });
const cookie = (reg.headers.get("set-cookie") ?? "").split(";")[0]!;
const link = (await (await call("POST", "/api/links", cookie, { originalUrl: "https://example.com/x", title: "x" })).json()) as { id: number };

// A year of roll-ups ending this hour, written as the writer's upsert would leave them.
const HOUR = 3_600_000;
const now = Math.floor(Date.now() / HOUR) * HOUR;
const hours: [string, number][] = [];
const days = new Map<string, number>();
for (let h = now - 366 * 24 * HOUR; h <= now; h += HOUR) {
  const iso = new Date(h).toISOString();
  hours.push([iso.slice(0, 13), 40]);
  days.set(iso.slice(0, 10), (days.get(iso.slice(0, 10)) ?? 0) + 40);
}
await db.tx(async (q) => {
  for (const [v, n] of hours) await q.run("INSERT INTO link_rollups (link_id, dim, value, count) VALUES (?, 'hour', ?, ?)", link.id, v, n);
  for (const [v, n] of days) await q.run("INSERT INTO link_rollups (link_id, dim, value, count) VALUES (?, 'day', ?, ?)", link.id, v, n);
});

const from31 = new Date(now - 29 * 24 * HOUR).toISOString().slice(0, 10);
const from366 = new Date(now - 364 * 24 * HOUR).toISOString().slice(0, 10);
const cases: [string, string][] = [
  ["default report (30 days, UTC, by day)", ""],
  ["30–31 days by hour, UTC", `?interval=hour&from=${from31}`],
  ["30–31 days by hour, Asia/Kathmandu", `?interval=hour&from=${from31}&tz=Asia/Kathmandu`],
  ["365–366 days by day, America/New_York", `?from=${from366}&tz=America/New_York`],
];
console.log(`series bench: ${hours.length} hour rows, ${days.size} day rows, ${RUNS} runs per case (SQLite)`);
for (const [name, q] of cases) {
  const times: number[] = [];
  let points = 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const res = await call("GET", `/api/links/${link.id}/analytics${q}`, cookie);
    const body = (await res.json()) as { series: { points: unknown[] } };
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${JSON.stringify(body)}`);
    times.push(performance.now() - t0);
    points = body.series.points.length;
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(2);
  console.log(`  ${name}: ${points} points, median ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${at(1)} ms`);
}
for (const hook of ctx.shutdownHooks) await hook();
await db.close();
rmSync(dir, { recursive: true, force: true });
