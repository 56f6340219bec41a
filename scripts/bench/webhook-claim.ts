// Webhook claim benchmark (issue 26, H-hooks): what one claim of the outbox costs with a backlog.
// Bounded, no network; not part of `npm test`.
//
//   BENCH_ENDPOINTS=10 BENCH_PER_ENDPOINT=600 node_modules/.bin/bun run scripts/bench/webhook-claim.ts
//
// A fresh SQLite database with BENCH_ENDPOINTS endpoints, each with BENCH_PER_ENDPOINT pending
// deliveries, all due; five claims as the sender's loop makes them (BENCH_LIMIT endpoints, up to
// BENCH_CHAIN deliveries each: src/webhooks/worker.ts), timed: wall and this thread's CPU. Since
// session 15 the claim runs on the webhook sender's thread, and on SQLite it is a read.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { openDatabase } from "../../src/db/connect";
import { webhooksStore } from "../../src/webhooks/store";

const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 10);
const PER_ENDPOINT = Number(process.env.BENCH_PER_ENDPOINT ?? 600);
const LIMIT = Number(process.env.BENCH_LIMIT ?? 32);
const CHAIN = Number(process.env.BENCH_CHAIN ?? 8);

const dir = mkdtempSync(join(tmpdir(), "threadlink-claim-bench-"));
try {
  const config = loadConfig({ DATA_DIR: dir, PUBLIC_URL: "http://localhost:3000" });
  const { db } = await openDatabase(config);
  const at = new Date(Date.now() - 1000).toISOString();
  await db.run("INSERT INTO users (id, username, password_hash, email, created_at, updated_at) VALUES (1, 'bench', 'x', 'bench@example.test', ?, ?)", at, at);
  await db.tx(async (q) => {
    for (let w = 1; w <= ENDPOINTS; w++)
      await q.run("INSERT INTO webhooks (id, user_id, url, secret, events, created_at, updated_at) VALUES (?, 1, 'https://hooks.example.com/', 'whsec_bench', ',clicks.recorded,', ?, ?)", w, at, at);
    for (let e = 1; e <= PER_ENDPOINT; e++)
      for (let w = 1; w <= ENDPOINTS; w++)
        await q.run("INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, body, next_at, created_at) VALUES (?, ?, 'clicks.recorded', '{}', ?, ?)", w, e, at, at);
  });
  const store = webhooksStore(db);
  const walls: number[] = [];
  const cpus: number[] = [];
  let got = 0;
  for (let i = 0; i < 5; i++) {
    const cpu = process.threadCpuUsage();
    const started = performance.now();
    got = (await store.claim(new Date().toISOString(), new Date(Date.now() + 60_000).toISOString(), LIMIT, CHAIN)).length;
    walls.push(performance.now() - started);
    const used = process.threadCpuUsage(cpu);
    cpus.push((used.user + used.system) / 1000);
    await db.run("UPDATE webhook_deliveries SET claimed_until = NULL WHERE claimed_until IS NOT NULL");
  }
  const median = (a: number[]) => a.toSorted((x, y) => x - y)[Math.floor(a.length / 2)]!;
  console.log(
    `claim of up to ${LIMIT} endpoints × ${CHAIN} (${got} claimed) with ${(ENDPOINTS * PER_ENDPOINT).toLocaleString("en-US")} pending over ${ENDPOINTS} endpoints: ` +
      `median ${median(walls).toFixed(2)} ms wall, ${median(cpus).toFixed(2)} ms CPU (of 5; max ${Math.max(...walls).toFixed(2)} ms wall)`,
  );
  await db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
