// Import benchmark (issue 14): bounded, loopback only, prints figures; not part of `npm test`.
//
//   node_modules/.bin/bun run scripts/bench/import.ts             # builds dist/threadlink if missing
//   BENCH_BINARY=.tmp/x/threadlink BENCH_PORT=4403 bun run scripts/bench/import.ts
//   knobs: BENCH_ROWS (10000), BENCH_RUNS (3), BENCH_CLIENTS (8 concurrent redirect clients)
//
// Starts the compiled binary on a fresh data dir, signs a user up, then per run imports a CSV of
// BENCH_ROWS new links (url,code,title; every 100th row bad, so the report has work to do)
// through POST /api/links/import while BENCH_CLIENTS loops follow short links as fast as they
// are answered. Prints the import's wall time (target: ≤ 5 s for 10,000 rows), the server's CPU
// time for it, and the redirects' p50/p99/max while the import ran beside the same figures with
// no import (the import must not hold the server). The verdict is the median run.
import { $ } from "bun";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const PORT = Number(process.env.BENCH_PORT ?? 3393);
const HOST = "127.0.0.1"; // loopback only, always
const BASE = `http://${HOST}:${PORT}`;
const binary = process.env.BENCH_BINARY ?? "dist/threadlink";
const TARGET_MS = 5000;
const CLK_TCK = 100; // Linux USER_HZ

function cpuMs(pid: number) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK; // utime + stime
}

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : Number.NaN);
const ms = (n: number) => `${n.toFixed(1)} ms`;

if (!existsSync(binary)) {
  console.log(`${binary} not found: building it (bun run scripts/build.ts)…`);
  await $`node_modules/.bin/bun run scripts/build.ts`.env({ ...process.env, OUTFILE: binary });
}

const dataDir = mkdtempSync(join(tmpdir(), "threadlink-bench-import-"));
const server = Bun.spawn([binary, "serve"], {
  env: {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(PORT),
    HOST,
    PUBLIC_URL: BASE,
    // The bench is one address making thousands of calls: the API's limits are not what is measured.
    API_RATE_LIMIT: "1000000",
    API_ANON_RATE_LIMIT: "1000000",
  },
  stdout: "ignore",
  stderr: "inherit",
});

try {
  for (let i = 0; ; i++) {
    if ((await fetch(`${BASE}/api/health`).catch(() => null))?.ok) break;
    if (i > 300) throw new Error("the server did not start");
    await Bun.sleep(100);
  }

  const signup = await fetch(`${BASE}/api/register`, {
    method: "POST",
    headers: { origin: BASE, "content-type": "application/json" },
    body: JSON.stringify({ username: "bench", password: "correct horse battery", email: "bench@example.test" }),
  });
  if (signup.status !== 201) throw new Error(`sign-up: ${signup.status} ${await signup.text()}`);
  const cookie = (signup.headers.get("set-cookie") ?? "").split(";")[0]!;

  // Links for the redirect clients to follow.
  const seed = ["url,code,title", ...Array.from({ length: 100 }, (_, i) => `https://example.com/seed/${i},seed-${i},Seed ${i}`)].join("\n");
  const seeded = await fetch(`${BASE}/api/links/import`, { method: "POST", headers: { origin: BASE, cookie, "content-type": "text/csv" }, body: seed });
  if (!seeded.ok) throw new Error(`seed: ${seeded.status} ${await seeded.text()}`);

  /** Follows short links from CLIENTS loops until `until` resolves; returns every latency (ms). */
  async function redirects(until: Promise<unknown>) {
    let done = false;
    void until.finally(() => {
      done = true;
    });
    const lat: number[] = [];
    let failures = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let i = c; !done; i += CLIENTS) {
          const t0 = performance.now();
          const r = await fetch(`${BASE}/seed-${i % 100}`, { redirect: "manual" });
          await r.arrayBuffer();
          if (r.status !== 302) failures++;
          lat.push(performance.now() - t0);
        }
      }),
    );
    return { lat: lat.sort((a, b) => a - b), failures };
  }

  const baseline = await redirects(Bun.sleep(2000));
  console.log(
    `redirects, no import (${CLIENTS} clients, 2 s): ${baseline.lat.length} requests, p50 ${ms(pct(baseline.lat, 50))}, p99 ${ms(pct(baseline.lat, 99))}, max ${ms(baseline.lat.at(-1) ?? Number.NaN)}`,
  );

  type Run = { wall: number; cpu: number; imported: number; skipped: number; p50: number; p99: number; max: number; requests: number; failures: number };
  const runs: Run[] = [];
  for (let run = 0; run < RUNS; run++) {
    const lines = ["url,code,title"];
    for (let i = 0; i < ROWS; i++) lines.push(i % 100 === 99 ? `not a url ${i},,Bad ${i}` : `https://example.com/r${run}/${i}?utm_source=bench,r${run}-${i},"Bench link ${i}, run ${run}"`);
    const body = lines.join("\r\n");
    const cpu0 = cpuMs(server.pid);
    const t0 = performance.now();
    const importing = fetch(`${BASE}/api/links/import`, { method: "POST", headers: { origin: BASE, cookie, "content-type": "text/csv" }, body }).then(async (r) => {
      const wall = performance.now() - t0;
      if (!r.ok) throw new Error(`import: ${r.status} ${await r.text()}`);
      return { wall, report: (await r.json()) as { imported: number; skipped: number } };
    });
    const during = await redirects(importing);
    const { wall, report } = await importing;
    const cpu = cpuMs(server.pid) - cpu0;
    runs.push({
      wall,
      cpu,
      imported: report.imported,
      skipped: report.skipped,
      p50: pct(during.lat, 50),
      p99: pct(during.lat, 99),
      max: during.lat.at(-1) ?? Number.NaN,
      requests: during.lat.length,
      failures: during.failures,
    });
    const r = runs.at(-1)!;
    console.log(
      `run ${run + 1}: ${ROWS.toLocaleString("en")} rows (${(body.length / 1e6).toFixed(2)} MB) in ${ms(r.wall)} — ${r.imported} imported, ${r.skipped} skipped; server CPU ${ms(r.cpu)} (all threads, redirects included); redirects meanwhile: ${r.requests} requests, p50 ${ms(r.p50)}, p99 ${ms(r.p99)}, max ${ms(r.max)}, ${r.failures} not 302`,
    );
  }

  const median = [...runs].sort((a, b) => a.wall - b.wall)[Math.floor(runs.length / 2)]!;
  const ok = median.wall <= TARGET_MS && median.imported === ROWS - Math.floor(ROWS / 100) && runs.every((r) => r.failures === 0);
  console.log(
    `verdict: ${ok ? "PASS" : "FAIL"} — median import of ${ROWS.toLocaleString("en")} rows ${ms(median.wall)} (target ≤ ${TARGET_MS} ms); redirect p99 during the import ${ms(median.p99)} vs ${ms(pct(baseline.lat, 99))} without`,
  );
  if (!ok) process.exitCode = 1;
} finally {
  server.kill("SIGTERM");
  await server.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
