// API rate limit cost (issue 14): what the limit adds to an /api request. Bounded, no network;
// not part of `npm test`.
//
//   node_modules/.bin/bun run scripts/bench/api-limits.ts
//
// 1. The count itself (a fixed-window Map entry and the four RateLimit fields), per call.
// 2. GET /api/links through the real app (app.handle, a fresh database, the real migrations)
//    with an API key and with a session cookie, limits on against limits off (0):
//    CPU time of this thread per request, best of 5 rounds, so other work on the machine
//    shows less. The key and the session are looked up once per request either way (the
//    limit shares the auth macro's look-ups), so the difference is the hook and the count.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { openDatabase } from "../../src/db/connect";
import { createApp } from "../../src/app";
import { apiRequestLimits } from "../../src/http/rateLimit";
import { hashToken } from "../../src/http/auth";
import { apiKeysStore } from "../../src/apikeys/store";
import { newApiKey } from "../../src/apikeys/access";

const N = Number(process.env.BENCH_REQUESTS ?? 3000);
const ROUNDS = 5;
const cpuUs = () => process.cpuUsage().user + process.cpuUsage().system;

const { perKey } = apiRequestLimits({ apiRateLimit: 1_000_000, apiAnonRateLimit: 0 });
let t0 = cpuUs();
const COUNTS = 500_000;
for (let i = 0; i < COUNTS; i++) perKey!.check(String(i % 1000));
console.log(`count and fields: ${(((cpuUs() - t0) * 1000) / COUNTS).toFixed(0)} ns a request`);

async function app(limits: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), "threadlink-bench-limits-"));
  const config = loadConfig({ DATA_DIR: dir, PUBLIC_URL: "http://localhost:3000", ...limits });
  const { db } = await openDatabase(config);
  const { app, ctx } = await createApp({ db, config });
  const user = await ctx.accounts.createUser("bench", "not-a-real-hash", "bench@example.test");
  const { key, prefix } = newApiKey();
  await apiKeysStore(db).create(user.id, { name: "bench", prefix, hash: hashToken(key), scope: "read", only: null });
  const token = "bench-session-token-0123456789";
  await ctx.accounts.createSession(hashToken(token), user.id, new Date(Date.now() + 86_400_000).toISOString());
  for (let i = 0; i < 20; i++) {
    await db.run("INSERT INTO short_links (user_id, tracker, short_code, original_url, title, created_at, updated_at) VALUES (?, 'main', ?, 'https://example.com/', 't', '2026-01-01', '2026-01-01')", user.id, `bench${i}`);
  }
  const headers = { key: { authorization: `Bearer ${key}` }, cookie: { cookie: `tl_session=${token}` } };
  const close = async () => {
    for (const hook of ctx.shutdownHooks) await hook();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { app, headers, close };
}

// On: the defaults' code path with a ceiling the run never reaches (300 a minute would refuse it).
const on = await app({ API_RATE_LIMIT: "1000000", API_ANON_RATE_LIMIT: "1000000" });
const off = await app({ API_RATE_LIMIT: "0", API_ANON_RATE_LIMIT: "0" });
for (const who of ["key", "cookie"] as const) {
  const best: Record<string, number> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, a] of [["on", on], ["off", off]] as const) {
      const start = cpuUs();
      for (let i = 0; i < N; i++) {
        const r = await a.app.handle(new Request("http://localhost:3000/api/links", { headers: a.headers[who] }));
        if (r.status !== 200) throw new Error(`${who} ${name}: ${r.status} ${await r.text()}`);
        await r.arrayBuffer();
      }
      const us = (cpuUs() - start) / N;
      best[name] = Math.min(best[name] ?? Infinity, us);
    }
  }
  console.log(`GET /api/links with a ${who}: limits on ${best.on!.toFixed(1)} µs, off ${best.off!.toFixed(1)} µs CPU a request (best of ${ROUNDS} × ${N})`);
}
await on.close();
await off.close();
