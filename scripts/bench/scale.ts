// Scale benchmark (issues 15 and 22): bounded, loopback only, prints figures; not part of `npm test`.
//
//   node_modules/.bin/bun run scripts/bench/scale.ts                # builds dist/threadlink if missing
//   SCALE_BINARY=.tmp/x/threadlink SCALE_BASELINE=.tmp/x/threadlink-old bun run scripts/bench/scale.ts
//   A short run that only proves the script works (its figures mean little):
//   SCALE_SECONDS=1 SCALE_LINKS=2000 SCALE_EXACT=200 SCALE_EDITS=20 SCALE_STOP_MS=3000 SCALE_RYW=30 \
//     SCALE_ROUNDS=1 bun run scripts/bench/scale.ts
//   knobs: SCALE_SECONDS (10), SCALE_LINKS (100000), SCALE_EXACT (10000: exact clicks, here and
//          in the fault phase), SCALE_EDITS (1000), SCALE_ROUNDS (3, SQLite A/B), SCALE_PORT
//          (47600: the balancer; +1, +2 the instances; +3, +4 the SQLite pair),
//          SCALE_ONLY=postgres|sqlite|faults (one part), SCALE_STOP_MS (60000: how long the
//          fault phase stops the database), SCALE_RYW (1000: read-your-writes cycles),
//          SCALE_BALANCERS (haproxy,nginx: the fault phase's balancers)
//
// Ends with every figure of issue 22 and its target, each with a verdict (MET / MISSED), for
// both balancers; exits 1 when one is missed.
//
// 1. A throwaway PostgreSQL 15 cluster with durable settings (fsync, full-page writes and
//    synchronous commit on, as in production), migrated by the binary, 100,000 links seeded.
// 2. One instance, then two, behind haproxy from Debian (installed when missing:
//    scripts/ensure-balancers.sh), round robin on loopback: wrk at c=64 on random codes
//    (redirects/s, p50/p99, errors), the PostgreSQL connections held (sampled while it runs).
// 3. Exact clicks: SCALE_EXACT GETs on links no other phase touches, through the balancer,
//    then a graceful stop (SIGTERM) of both instances: every GET must be exactly one click
//    (link_click_counts and link_analytics).
// 4. Edit propagation (two instances): SCALE_EDITS edits through instance A's API, each
//    followed by polling instance B until it redirects to the new destination: p50/p99 from
//    A's answer (the commit) to B's first right answer; then again with the CPU saturated (one
//    busy process per core beside everything else).
// 6. (after 5) Faults through deploy/haproxy.cfg and deploy/nginx.conf: faultPhase below.
// 5. The SQLite default not getting slower: SCALE_BASELINE (a binary of an earlier commit;
//    skipped when unset) and SCALE_BINARY on the same seeded SQLite data, alternating rounds
//    of wrk at c=64 (the order turning each round), medians and their ratios: the rate, and the
//    server's CPU per redirect (click writing included), which other load on the machine
//    disturbs far less than the rate or p99.
// On this 2-core machine wrk, haproxy, PostgreSQL and the instances share the cores: two
// instances cannot double throughput here; the figures that must hold are correctness and p99.
import { $ } from "bun";
import { SQL } from "bun";
import { Database } from "bun:sqlite";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { startCluster } from "../lib/pgcluster";
import { ensureWrk, parseWrk, writeRandomCodesScript } from "../lib/wrk";
import { startHaproxy } from "../lib/haproxy";

const SECONDS = Number(process.env.SCALE_SECONDS ?? 10);
const LINKS = Number(process.env.SCALE_LINKS ?? 100_000);
const EXACT = Number(process.env.SCALE_EXACT ?? 10_000);
const EDITS = Number(process.env.SCALE_EDITS ?? 1000);
const ROUNDS = Number(process.env.SCALE_ROUNDS ?? 3);
const PORT = Number(process.env.SCALE_PORT ?? 47600);
const HOST = "127.0.0.1"; // loopback only, always
const binary = process.env.SCALE_BINARY ?? "dist/threadlink";
const baseline = process.env.SCALE_BASELINE ?? null;
const ONLY = process.env.SCALE_ONLY ?? "";
const RYW = Number(process.env.SCALE_RYW ?? 1000);
const BALANCERS = (process.env.SCALE_BALANCERS ?? "haproxy,nginx").split(",").filter((x) => x === "haproxy" || x === "nginx");
/** Edit propagation's bound (issue 15: the multi-instance tests' FOLLOW_MS), also with the CPU saturated. */
const FOLLOW_P99_MS = 100;

/** Every figure with a target, printed together at the end (issue 22's list). */
type Figure = { balancer: string; name: string; value: number | string; target: string; met: boolean };
const figures: Figure[] = [];
/** Links the exact-click phase uses (no wrk run touches them). */
const EXACT_LINKS = 100;
const TOKEN = "scale-session-token-0123456789abcdef";
const CLK_TCK = 100; // Linux USER_HZ

const ports = { lb: PORT, a: PORT + 1, b: PORT + 2, liteBase: PORT + 3, liteNew: PORT + 4 };
const children: Bun.Subprocess[] = [];
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

async function ensureTools() {
  await ensureWrk();
  await $`bash scripts/ensure-balancers.sh`;
  await $`bash scripts/ensure-postgres.sh`;
}

async function healthy(port: number, limitMs = 60_000) {
  const t0 = performance.now();
  for (;;) {
    if ((await fetch(`http://${HOST}:${port}/api/health`).catch(() => null))?.ok) return performance.now() - t0;
    if (performance.now() - t0 > limitMs) throw new Error(`nothing healthy on port ${port}`);
    await Bun.sleep(20);
  }
}

function spawnServe(bin: string, env: Record<string, string>) {
  // CLICK_DETAIL_PER_MINUTE=0: one address floods here, and every click keeps its row.
  const p = Bun.spawn([bin, "serve"], { env: { ...process.env, HOST, LOG_LEVEL: "warn", CLICK_DETAIL_PER_MINUTE: "0", ...env }, stdout: "ignore", stderr: "inherit" });
  children.push(p);
  return p;
}

async function stop(p: Bun.Subprocess) {
  p.kill("SIGTERM");
  await p.exited;
}

/** deploy/haproxy.cfg as shipped (scripts/lib/haproxy.ts), round robin over `servers` (ports). */
async function balancer(dir: string, servers: number[]) {
  const p = await startHaproxy(dir, ports.lb, servers);
  children.push(p);
  return p;
}

/**
 * 6. Faults (issue 22), through each balancer's shipped file with two instances of this binary
 *    under redirect and write load: src/links/failover.pg.test.ts run with the full-length
 *    knobs (the database stopped SCALE_STOP_MS, SCALE_RYW read-your-writes cycles, SCALE_EXACT
 *    clicks), once per balancer. Its narrative lines are printed, and its `figure` lines kept
 *    for the table at the end.
 */
async function faultPhase() {
  const stopMs = Number(process.env.SCALE_STOP_MS ?? 60_000);
  let ok = true;
  for (const balancer of BALANCERS) {
    console.log(`faults through ${balancer}: src/links/failover.pg.test.ts with ${binary}, the database stopped for ${stopMs / 1000} s`);
    const env = { THREADLINK_BINARY: binary, FAILOVER_BALANCER: balancer, FAILOVER_STOP_MS: String(stopMs), FAILOVER_RYW: String(RYW), FAILOVER_CLICKS: String(EXACT) };
    const p = Bun.spawn([process.execPath, "test", "--path-ignore-patterns=web/e2e/**", "--path-ignore-patterns=dist/**", "src/links/failover.pg.test"], {
      env: { ...process.env, ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
    const lines = `${out}\n${err}`.split("\n");
    for (const l of lines) {
      if (l.startsWith("figure ")) figures.push(JSON.parse(l.slice(7)) as Figure);
      else if (/^(pg_ctl restart -m fast|the database stopped \d+ s|listeners killed|one listener paused|read-your-writes|stale|clicks after a graceful stop|crash window|kill -9):/.test(l)) console.log(`  ${l}`);
    }
    const summary = lines.filter((l) => /^\s*\d+ (pass|fail)$/.test(l)).map((l) => l.trim());
    const passed = (await p.exited) === 0;
    console.log(`  fail-over tests through ${balancer}: ${summary.join(", ")} → ${passed ? "ALL HELD" : "NOT ALL HELD"}`);
    if (!passed) console.log(lines.filter((l) => /^\(fail\)|error:/.test(l)).slice(0, 20).join("\n"));
    ok &&= passed;
  }
  return ok;
}

type Wrk = { rps: number; p50: number; p99: number; requests: number; errors: number; non3xx: number; cpuUs: number };

/** CPU ticks (user + system, every thread) a process has used. */
function cpuTicks(pid: number) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(f[11]) + Number(f[12]);
}

/**
 * wrk at c=64 for SECONDS; `servers` are the processes whose CPU per request is reported (the
 * instances): steadier than requests/s on a machine others share, as it leaves out the waiting.
 */
async function wrk(port: number, script: string, servers: Bun.Subprocess[], c = 64): Promise<Wrk> {
  const before = servers.map((p) => cpuTicks(p.pid));
  const out = await $`wrk -t2 -c${c} -d${SECONDS}s --timeout 5s -s ${script} http://${HOST}:${port}/`.quiet().text();
  const ticks = servers.reduce((n, p, i) => n + cpuTicks(p.pid) - before[i]!, 0);
  const j = parseWrk(out);
  return {
    rps: j.requests / (j.duration / 1e6),
    p50: j.p50 / 1000,
    p99: j.p99 / 1000,
    requests: j.requests,
    errors: j.connect + j.read + j.write + j.timeout,
    non3xx: j.status,
    cpuUs: (ticks * (1e6 / CLK_TCK)) / j.requests,
  };
}

const show = (label: string, r: Wrk) =>
  console.log(
    `${label.padEnd(34)} ${r.rps.toFixed(0).padStart(6)} redirects/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  ` +
      `instances' cpu ${r.cpuUs.toFixed(1)} µs/redirect  errors ${r.errors}, non-3xx ${r.non3xx}`,
  );

function wrkScript(dir: string, codes: string[]) {
  const codesFile = join(dir, "codes.txt");
  writeFileSync(codesFile, `${codes.join("\n")}\n`);
  const script = join(dir, "random.lua");
  writeRandomCodesScript(script, codesFile);
  return script;
}

const codeOf = (i: number) => `b${i.toString(36).padStart(6, "0")}`;
const exactCode = (i: number) => `exact${i}`;

/** Connections to the bench database by state, sampled every 100 ms while `work` runs: the most seen. */
async function connectionsDuring<T>(admin: SQL, db: string, work: Promise<T>): Promise<[T, number]> {
  let max = 0;
  let done = false;
  const sampler = (async () => {
    while (!done) {
      const [r] = await admin`SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE datname = ${db} AND pid != pg_backend_pid()`;
      max = Math.max(max, r.n);
      await Bun.sleep(100);
    }
  })();
  const result = await work;
  done = true;
  await sampler;
  return [result, max];
}

async function connectionsNow(admin: SQL, db: string) {
  const rows = await admin`SELECT COALESCE(NULLIF(state, ''), 'unknown') AS state, COUNT(*)::int AS n FROM pg_stat_activity
    WHERE datname = ${db} AND pid != pg_backend_pid() GROUP BY 1 ORDER BY 1`;
  return [...rows].map((r) => `${r.n} ${r.state}`).join(", ");
}

async function postgresPhases(dir: string) {
  const cluster = await startCluster({ durable: true });
  const DB = "scale";
  const url = await cluster.createDatabase(DB);
  const admin = new SQL({ url: cluster.adminUrl(DB), max: 2 });
  try {
    await $`${binary} migrate`.env({ ...process.env, DATABASE_URL: url, DATA_DIR: join(dir, "unused") }).quiet();
    const t0 = performance.now();
    const now = new Date().toISOString();
    const [user] = await admin`INSERT INTO users (username, password_hash, email, created_at, updated_at) VALUES ('bench', 'x', 'bench@example.test', ${now}, ${now}) RETURNING id`;
    await admin`INSERT INTO sessions (id, user_id, created_at, expires_at) VALUES (${createHash("sha256").update(TOKEN).digest("hex")}, ${user.id}, ${now}, ${new Date(Date.now() + 86_400_000).toISOString()})`;
    await admin`INSERT INTO short_links (user_id, tracker, short_code, original_url, title, created_at, updated_at)
      SELECT ${user.id}, 'main', 'b' || lpad(to_hex(g), 6, '0'), 'https://example.com/landing/' || g || '?utm_source=bench', 'Bench ' || g, ${now}, ${now}
      FROM generate_series(0, ${LINKS - 1}) g`;
    await admin`INSERT INTO short_links (user_id, tracker, short_code, original_url, title, created_at, updated_at)
      SELECT ${user.id}, 'main', 'exact' || g, 'https://example.com/exact/' || g, 'Exact ' || g, ${now}, ${now} FROM generate_series(0, ${EXACT_LINKS - 1}) g`;
    const [edited] = await admin`INSERT INTO short_links (user_id, tracker, short_code, original_url, title, created_at, updated_at)
      VALUES (${user.id}, 'main', 'edited', 'https://example.com/edit/0', 'Edited', ${now}, ${now}) RETURNING id`;
    await admin`VACUUM ANALYZE`;
    console.log(`PostgreSQL ${(await admin`SHOW server_version`)[0].server_version}, durable (fsync on, synchronous_commit on); seeded ${LINKS.toLocaleString("en-US")} links in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    // Hex codes, as seeded (lpad(to_hex(g), 6)).
    const script = wrkScript(dir, Array.from({ length: LINKS }, (_, i) => `b${i.toString(16).padStart(6, "0")}`));

    const env = (port: number) => ({ DATABASE_URL: url, PORT: String(port), DATA_DIR: join(dir, `data-${port}`), PUBLIC_URL: `http://${HOST}:${ports.lb}` });
    // One instance behind the balancer.
    const a = spawnServe(binary, env(ports.a));
    const startA = await healthy(ports.a);
    console.log(`instance A: healthy ${startA.toFixed(0)} ms after spawn (${LINKS.toLocaleString("en-US")} links in its map); connections: ${await connectionsNow(admin, DB)}`);
    let lb = await balancer(dir, [ports.a]);
    const [one, held1] = await connectionsDuring(admin, DB, wrk(ports.lb, script, [a]));
    show("1 instance behind haproxy, c=64", one);
    console.log(`${"".padEnd(34)} PostgreSQL connections held: at most ${held1} during the run; after: ${await connectionsNow(admin, DB)}`);
    await stop(lb);

    // Two instances behind it.
    const b = spawnServe(binary, env(ports.b));
    await healthy(ports.b);
    lb = await balancer(dir, [ports.a, ports.b]);
    const [two, held2] = await connectionsDuring(admin, DB, wrk(ports.lb, script, [a, b]));
    show("2 instances behind haproxy, c=64", two);
    console.log(`${"".padEnd(34)} PostgreSQL connections held: at most ${held2} during the run; after: ${await connectionsNow(admin, DB)}`);
    console.log(`${"".padEnd(34)} 2 / 1 instance: ${(two.rps / one.rps).toFixed(2)}× (2 cores shared by wrk, haproxy, PostgreSQL and the instances)`);

    // Edit propagation: A's API, B's redirect; quiet, then with every core kept busy.
    const cookie = `tl_session=${TOKEN}`;
    let edits = 0;
    const propagation = async (label: string) => {
      const lags: number[] = [];
      const fromStart: number[] = [];
      for (let n = 0; n < EDITS; n++) {
        const i = ++edits;
        const want = `https://example.com/edit/${i}`;
        const s = performance.now();
        const r = await fetch(`http://${HOST}:${ports.a}/api/links/${edited.id}`, {
          method: "PUT",
          headers: { "content-type": "application/json", cookie },
          body: JSON.stringify({ originalUrl: want, title: "Edited", description: "", expiresAt: null }),
        });
        if (r.status !== 200) throw new Error(`edit ${i}: ${r.status} ${await r.text()}`);
        const t = performance.now();
        for (;;) {
          const got = await fetch(`http://${HOST}:${ports.b}/edited`, { method: "HEAD", redirect: "manual" });
          if (got.headers.get("location") === want) break;
          if (performance.now() - t > 5_000) throw new Error(`edit ${i}: B did not follow within 5 s`);
        }
        const end = performance.now();
        lags.push(end - t);
        fromStart.push(end - s);
      }
      lags.sort((x, y) => x - y);
      fromStart.sort((x, y) => x - y);
      console.log(
        `edit propagation A → B over ${EDITS} edits, ${label}: from A's answer p50 ${pct(lags, 50).toFixed(2)} ms, p99 ${pct(lags, 99).toFixed(2)} ms, max ${lags.at(-1)!.toFixed(2)} ms; ` +
          `from the edit's request p50 ${pct(fromStart, 50).toFixed(2)} ms, p99 ${pct(fromStart, 99).toFixed(2)} ms (B polled over HTTP: ~0.2 ms a poll included)`,
      );
      // From A's answer, as FOLLOW_MS is measured (src/test/instances.ts); the write waits for B's
      // confirmation (read-your-writes), so this is near 0 unless that wait ran out.
      const p99 = pct(lags, 99);
      figures.push({ balancer: "-", name: `edit propagation A → B, ${label}: p50 / p99 from A's answer (ms)`, value: `${pct(lags, 50).toFixed(2)} / ${p99.toFixed(2)}`, target: `p99 ≤ ${FOLLOW_P99_MS}`, met: p99 <= FOLLOW_P99_MS });
    };
    await propagation("quiet");
    const busy = Array.from({ length: availableParallelism() }, () => {
      const p = Bun.spawn([process.execPath, "-e", "for (;;) {}"], { stdout: "ignore", stderr: "ignore" });
      children.push(p);
      return p;
    });
    try {
      await Bun.sleep(500);
      await propagation(`the CPU saturated (${busy.length} busy processes)`);
    } finally {
      for (const p of busy) p.kill("SIGKILL");
    }

    // The click writers' backlog from the wrk runs, drained first: the exact count below is
    // about a graceful stop, not about how far behind c=64 left the writers.
    const drain = await Promise.all([ports.a, ports.b].map(drained));
    console.log(`click backlog after the wrk runs: ${drain.map((d) => `${d.left.toLocaleString("en-US")} clicks (dropped ${d.dropped}), drained in ${(d.ms / 1000).toFixed(1)} s`).join("; ")}`);
    // Exact clicks through the balancer, then a graceful stop of both.
    const sent = await exactClicks(ports.lb);
    await stop(lb);
    const tStop = performance.now();
    await Promise.all([stop(a), stop(b)]);
    const [counted] = await admin`SELECT COALESCE(SUM(c.clicks), 0)::bigint AS n FROM link_click_counts c JOIN short_links s ON s.id = c.link_id WHERE s.short_code LIKE 'exact%'`;
    const [rows] = await admin`SELECT COUNT(*)::bigint AS n FROM link_analytics a JOIN short_links s ON s.id = a.link_id WHERE s.short_code LIKE 'exact%'`;
    const ok = Number(counted.n) === sent && Number(rows.n) === sent;
    figures.push({ balancer: "haproxy", name: `clicks after a graceful stop of both (${sent} sent): counted, click rows`, value: `${counted.n}, ${rows.n}`, target: `${sent}, ${sent}`, met: ok });
    console.log(
      `exact clicks: ${sent} GETs through haproxy to 2 instances, both stopped with SIGTERM (${(performance.now() - tStop).toFixed(0)} ms): ` +
        `${counted.n} counted, ${rows.n} click rows — ${ok ? "EXACT" : "NOT EXACT"}`,
    );
    const [left] = await admin`SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE datname = ${DB} AND pid != pg_backend_pid()`;
    console.log(`connections left after both stopped: ${left.n}`);
    return { one, two, ok };
  } finally {
    await admin.close();
    await cluster.stop();
  }
}

type Clicks = { backlog: number; dropped: number };
const clickStats = async (port: number) => ((await (await fetch(`http://${HOST}:${port}/api/health`)).json()) as { details: { clicks: Clicks } }).details.clicks;

/** Waits until an instance's click writer has nothing left to write (at most 5 minutes). */
async function drained(port: number) {
  const t0 = performance.now();
  const first = await clickStats(port);
  for (let s = first; s.backlog > 0; s = await clickStats(port)) {
    if (performance.now() - t0 > 300_000) throw new Error(`port ${port}: ${s.backlog} clicks still unwritten after 5 minutes`);
    await Bun.sleep(100);
  }
  return { left: first.backlog, dropped: (await clickStats(port)).dropped, ms: performance.now() - t0 };
}

/** EXACT GETs over the exact links (no cookie: each a new visitor), 32 at a time; all must be 302. */
async function exactClicks(port: number) {
  let next = 0;
  let bad = 0;
  const worker = async () => {
    while (next < EXACT) {
      const i = next++;
      const r = await fetch(`http://${HOST}:${port}/${exactCode(i % EXACT_LINKS)}`, { redirect: "manual" });
      await r.arrayBuffer();
      if (r.status !== 302) bad++;
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  if (bad) throw new Error(`${bad} of ${EXACT} exact-click GETs were not redirected`);
  return EXACT;
}

/** The SQLite default before (SCALE_BASELINE) and after (SCALE_BINARY): same data, alternating rounds. */
async function sqlitePhase(dir: string) {
  if (!baseline) {
    console.log("SQLite before/after: skipped (set SCALE_BASELINE to a binary of an earlier commit)");
    return;
  }
  const seeded = join(dir, "lite");
  // The baseline migrates (it may know fewer migrations: the new binary adds its own at start).
  await $`${baseline} migrate`.env({ ...process.env, DATA_DIR: seeded }).quiet();
  const db = new Database(join(seeded, "threadlink.db"));
  const now = new Date().toISOString();
  db.query("INSERT INTO users (id, username, password_hash, email, created_at, updated_at) VALUES (1, 'bench', 'x', 'bench@example.test', ?, ?)").run(now, now);
  const insert = db.prepare("INSERT INTO short_links (user_id, tracker, short_code, original_url, title, created_at, updated_at) VALUES (1, 'main', ?, ?, ?, ?, ?)");
  db.transaction(() => {
    for (let i = 0; i < LINKS; i++) insert.run(codeOf(i), `https://example.com/landing/${i}?utm_source=bench`, `Bench ${i}`, now, now);
  })();
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  const script = wrkScript(join(dir), Array.from({ length: LINKS }, (_, i) => codeOf(i)));
  const runs: Record<"before" | "after", Wrk[]> = { before: [], after: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    const pair = [["before", baseline, ports.liteBase], ["after", binary, ports.liteNew]] as const;
    // The order turns every round, so neither binary always runs second (after the other's load).
    for (const [which, bin, port] of round % 2 ? pair : [...pair].reverse()) {
      // A fresh copy per run: every run starts from the same file, without the clicks of the last.
      const data = join(dir, `lite-${which}-${round}`);
      cpSync(seeded, data, { recursive: true });
      const p = spawnServe(bin, { PORT: String(port), DATA_DIR: data, PUBLIC_URL: `http://${HOST}:${port}` });
      await healthy(port);
      const r = await wrk(port, script, [p]);
      show(`SQLite ${which} (round ${round}), c=64`, r);
      runs[which].push(r);
      await stop(p);
      rmSync(data, { recursive: true, force: true });
    }
  }
  const [b, a] = [median(runs.before.map((r) => r.rps)), median(runs.after.map((r) => r.rps))];
  const [b99, a99] = [median(runs.before.map((r) => r.p99)), median(runs.after.map((r) => r.p99))];
  const [bCpu, aCpu] = [median(runs.before.map((r) => r.cpuUs)), median(runs.after.map((r) => r.cpuUs))];
  console.log(
    `SQLite medians: before ${b.toFixed(0)} redirects/s p99 ${b99.toFixed(2)} ms cpu ${bCpu.toFixed(1)} µs/redirect; ` +
      `after ${a.toFixed(0)} redirects/s p99 ${a99.toFixed(2)} ms cpu ${aCpu.toFixed(1)} µs/redirect; after/before ${(a / b).toFixed(3)}× the rate, ${(aCpu / bCpu).toFixed(3)}× the CPU`,
  );
}

/** The machine's load averages (1, 5, 15 minutes) and the time: the other work beside this run. */
const loadAverage = () => `${new Date().toISOString().slice(11, 19)} UTC, load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(", ")}`;

async function main() {
  await ensureTools();
  if (!existsSync(binary)) {
    console.log(`building ${binary}…`);
    await $`OUTFILE=${binary} ${process.execPath} run scripts/build.ts`;
  }
  console.log(`load before: ${loadAverage()}`);
  const dir = mkdtempSync(join(tmpdir(), "threadlink-scale-"));
  try {
    const pg = ONLY === "sqlite" || ONLY === "faults" ? null : await postgresPhases(dir);
    if (ONLY !== "postgres" && ONLY !== "faults") await sqlitePhase(dir);
    const faults = ONLY === "" || ONLY === "faults" ? await faultPhase() : null;
    if (faults === false) process.exitCode = 1;
    console.log(`load after: ${loadAverage()}`);
    if (pg) {
      const p99ok = pg.one.p99 <= 10 && pg.two.p99 <= 10;
      console.log(`verdict: p99 ≤ 10 ms ${p99ok ? "MET" : "MISSED"}; clicks ${pg.ok ? "EXACT" : "NOT EXACT"}; errors ${pg.one.errors + pg.two.errors}, non-3xx ${pg.one.non3xx + pg.two.non3xx}`);
      if (!pg.ok) process.exitCode = 1;
    }
    if (figures.length) {
      console.log("\nfigures (issue 22): balancer | figure | measured | target | verdict");
      for (const f of figures) console.log(`  ${f.balancer.padEnd(7)} | ${f.name} | ${f.value} | ${f.target} | ${f.met ? "MET" : "MISSED"}`);
      const missed = figures.filter((f) => !f.met).length;
      console.log(`  ${figures.length - missed} of ${figures.length} met`);
      if (missed) process.exitCode = 1;
    }
  } finally {
    for (const p of children) if (p.exitCode === null) p.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
