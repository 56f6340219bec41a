// The cost of the sign-in limits counted in the database (docs/performance.md): one sign-in's
// take (3 limits, one transaction) and a one-limit take, per backend, 5,000 of each.
// node_modules/.bin/bun scripts/bench/attempts.ts
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/connect";
import { attemptStore } from "../../src/http/attemptStore";
import { startCluster } from "../lib/pgcluster";

async function run(label: string, config: { dataDir: string; databaseUrl: string | null }) {
  const { db } = await openDatabase(config);
  const store = attemptStore(db);
  const N = 5000;
  for (const kind of ["login (3 limits)", "sign-up (1 limit)"]) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    for (let i = 0; i < N; i++) {
      const addr = `198.51.${i >> 8}.${i & 255}`;
      const r = kind.startsWith("login")
        ? await store.take([["loginPerAccountAddress", `u${i % 50}|${addr}`], ["loginPerAccount", `u${i % 50}`], ["loginPerAddress", addr]])
        : await store.take([["signupPerAddress", addr]]);
      if ("slots" in r && i % 2 === 0) await store.refund(r.slots);
    }
    const c = process.cpuUsage(c0);
    console.log(`${label} ${kind}: ${(((performance.now() - t0) * 1000) / N).toFixed(1)} µs wall, ${((c.user + c.system) / N).toFixed(1)} µs CPU (this process) per take (+ a refund every other)`);
  }
  await db.close();
}
const dir = mkdtempSync(join(tmpdir(), "threadlink-attempts-"));
try {
  await run("SQLite", { dataDir: dir, databaseUrl: null });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const c = await startCluster();
try {
  await run("PostgreSQL", { dataDir: dir, databaseUrl: await c.createDatabase() });
} finally {
  await c.stop();
}
