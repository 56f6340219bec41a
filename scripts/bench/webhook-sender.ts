// Webhook sender benchmark (issue 26): what one delivery costs the thread that serves the
// redirects. The sender (src/webhooks/worker.ts) runs there: it claims, signs, POSTs and records
// each delivery. Bounded, no network beyond loopback; not part of `npm test`.
//
//   BENCH_ENDPOINTS=10 BENCH_PER_ENDPOINT=200 BENCH_BODY_BYTES=200 node_modules/.bin/bun run scripts/bench/webhook-sender.ts
//   BENCH_BODY_BYTES=100000 … a clicks.recorded chunk's size (1,000 links); BENCH_INLINE=1 keeps
//     the body in the delivery row (small events, and every delivery before migrations/0025)
//
// A fresh SQLite database with BENCH_ENDPOINTS endpoints, each with BENCH_PER_ENDPOINT queued
// deliveries of a BENCH_BODY_BYTES body (a backlog, as a click flood leaves it), sent to a
// receiver in another process (so its work is not counted here). Printed: this thread's CPU µs
// per delivery and per body kilobyte, and the longest the event loop went without a turn
// (a 1 ms timer's worst lateness): what a redirect waiting behind the sender would wait.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { openDatabase } from "../../src/db/connect";
import { createContext } from "../../src/context";
import { eventFeed } from "../../src/events/feed";
import { startWebhookWorker } from "../../src/webhooks/worker";

const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 10);
const PER_ENDPOINT = Number(process.env.BENCH_PER_ENDPOINT ?? 200);
const BODY_BYTES = Number(process.env.BENCH_BODY_BYTES ?? 200);
const INLINE = process.env.BENCH_INLINE === "1";

const receiver = Bun.spawn(
  [process.execPath, "-e", `const s = Bun.serve({ hostname: "127.0.0.1", port: 0, async fetch(r) { await r.arrayBuffer(); return new Response("ok"); } }); console.log(s.port);`],
  { stdout: "pipe" },
);
const first = await receiver.stdout.getReader().read();
const port = Number(new TextDecoder().decode(first.value).trim());

const dir = mkdtempSync(join(tmpdir(), "threadlink-sender-bench-"));
try {
  const config = loadConfig({ DATA_DIR: dir, PUBLIC_URL: "http://localhost:3000", WEBHOOK_ALLOW_PRIVATE: "true" });
  const { db } = await openDatabase(config);
  const now = new Date().toISOString();
  await db.run("INSERT INTO users (id, username, password_hash, email, created_at, updated_at) VALUES (1, 'bench', 'x', 'bench@example.test', ?, ?)", now, now);
  const body = JSON.stringify({ id: "evt_1", type: "clicks.recorded", createdAt: now, data: { pad: "x".repeat(Math.max(0, BODY_BYTES - 80)) } });
  await db.tx(async (q) => {
    for (let w = 1; w <= ENDPOINTS; w++) {
      await q.run("INSERT INTO webhooks (id, user_id, url, secret, events, created_at, updated_at) VALUES (?, 1, ?, 'whsec_bench', ',clicks.recorded,', ?, ?)", w, `http://127.0.0.1:${port}/${w}`, now, now);
    }
    // Interleaved as a fan-out queues them: chunk by chunk, each to every endpoint. INLINE=1: the
    // body in each delivery row, as every delivery was before migrations/0024 (and small events are).
    for (let e = 1; e <= PER_ENDPOINT; e++) {
      const bodyId = INLINE ? null : (await q.get<{ id: number }>("INSERT INTO webhook_bodies (user_id, first_event_id, body, created_at) VALUES (1, ?, ?, ?) RETURNING id", e, body, now))!.id;
      for (let w = 1; w <= ENDPOINTS; w++)
        await q.run(
          "INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, body, body_id, next_at, created_at) VALUES (?, ?, 'clicks.recorded', ?, ?, ?, ?)",
          w, e, INLINE ? body : "", bodyId, now, now,
        );
    }
  });
  const total = ENDPOINTS * PER_ENDPOINT;
  let worst = 0;
  let last = performance.now();
  const probe = setInterval(() => {
    const t = performance.now();
    worst = Math.max(worst, t - last - 1);
    last = t;
  }, 1);
  const ctx = createContext(db, config);
  const feed = eventFeed(config);
  const cpu = process.threadCpuUsage();
  const started = performance.now();
  startWebhookWorker(ctx, feed);
  for (;;) {
    await Bun.sleep(50);
    const { n } = (await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE state = 'delivered'"))!;
    if (n >= total) break;
  }
  const wall = performance.now() - started;
  const used = process.threadCpuUsage(cpu);
  clearInterval(probe);
  const us = (used.user + used.system) / total;
  console.log(
    `${total.toLocaleString("en-US")} deliveries (${ENDPOINTS} endpoints × ${PER_ENDPOINT}, ${body.length} B bodies ${INLINE ? "inline" : "apart"}) in ${(wall / 1000).toFixed(1)} s: ` +
      `${us.toFixed(0)} µs CPU per delivery on the request thread (${((us * 1024) / body.length).toFixed(1)} per body KB), ` +
      `${Math.round(total / (wall / 1000))} deliveries/s, event loop's longest wait ${worst.toFixed(1)} ms`,
  );
  for (const h of ctx.shutdownHooks) await h();
  await feed.stop();
  await db.close();
} finally {
  receiver.kill();
  rmSync(dir, { recursive: true, force: true });
}
