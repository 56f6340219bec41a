// Two Threadlink processes on one PostgreSQL behind haproxy running deploy/haproxy.cfg (issue
// 22), under redirect and write load through the balancer: the database restarted and stopped,
// the listening connections killed and paused, read-your-writes, one instance killed with -9.
// The two-instance harness (src/test/instances.ts: real processes on loopback, a throwaway
// cluster), haproxy from Debian (scripts/ensure-balancers.sh). Run by scripts/test.sh's
// PostgreSQL section; the full-length figures (a 60 s stop) are the scale benchmark's
// (scripts/bench/scale.ts). The same for nginx: src/links/nginx.pg.test.ts.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SQL } from "bun";
import type { PgCluster } from "../../scripts/lib/pgcluster";
import { startHaproxy } from "../../scripts/lib/haproxy";
import { PASSWORD } from "../test/helpers";
import { freePort, healthOf, type Instance, json, load as loadThrough, noneLost as noneLostIn, startTwins, stopTwins, targetAt as target, type Twins, untilHealthy } from "../test/instances";

/** The database stopped for this long here (FAILOVER_STOP_MS: 60 s in the benchmark). */
const STOP_MS = Number(process.env.FAILOVER_STOP_MS ?? 10_000);
setDefaultTimeout(STOP_MS + 60_000);
/** Writes answer again within this of the database answering (issue 22). */
const WRITES_BACK_MS = 2_000;
/** A change made while a listener was killed or paused is served by every instance within this (README). */
const CATCH_UP_MS = 5_000;
const READ_YOUR_WRITES = 1_000;

let twins: Twins;
let cluster: PgCluster;
let admin: SQL;
let a: Instance;
let b: Instance;
let haproxy: Bun.Subprocess;
let lb: string;
let haDir: string;
let cookie: string;
/** Links the redirect load follows: code → destination (never changed). */
const steady = new Map<string, string>();

beforeAll(async () => {
  twins = await startTwins("failover", { logs: true });
  ({ cluster, admin, a, b } = twins);
  haDir = mkdtempSync(join(tmpdir(), "threadlink-haproxy-"));
  const port = freePort();
  lb = `http://127.0.0.1:${port}`;
  haproxy = await startHaproxy(haDir, port, [a.port, b.port]);
  const r = await fetch(`${lb}/api/register`, { method: "POST", ...json({ username: "fail", password: PASSWORD, email: "fail@example.test" }) });
  expect(r.status).toBe(201);
  cookie = r.headers.get("set-cookie")!.split(";")[0]!;
  for (let i = 0; i < 20; i++) {
    const dest = `https://example.com/steady/${i}`;
    expect((await fetch(`${lb}/api/links`, { method: "POST", ...json({ originalUrl: dest, title: "Steady", shortCode: `steady${i}` }, cookie) })).status).toBe(201);
    steady.set(`steady${i}`, dest);
  }
}, 120_000);

afterAll(async () => {
  haproxy?.kill();
  await stopTwins(twins);
  if (haDir) rmSync(haDir, { recursive: true, force: true });
}, 60_000);

const load = () => loadThrough(lb, cookie, steady);
const noneLost = (codes: string[]) => noneLostIn(admin, codes);

describe("two instances behind haproxy (deploy/haproxy.cfg)", () => {
  test("pg_ctl restart -m fast under load: 0 failed redirects, writes back within 2 s, 0 acknowledged writes lost", async () => {
    const l = load();
    await Bun.sleep(1_000);
    await cluster.restartServer();
    const up = performance.now();
    await Bun.sleep(3_000);
    const s = await l.stop();
    console.log(`restart: ${s.redirects} redirects, ${s.failed.length} failed; ${s.writes} writes, ${s.acked.length} acknowledged, ${s.refused} refused with 503 + Retry-After; first write after the database answered: ${l.firstAckAfter(up).toFixed(0)} ms`);
    expect(s.failed.slice(0, 5)).toEqual([]);
    expect(s.otherWrite.slice(0, 5)).toEqual([]);
    expect(l.firstAckAfter(up)).toBeLessThan(WRITES_BACK_MS);
    await noneLost(s.acked);
    await Promise.all([untilHealthy(a), untilHealthy(b)]);
  });

  test(`the database stopped for ${STOP_MS / 1000} s under load: redirects served throughout, health 200 with db unavailable, writes 503 with Retry-After, back within 2 s`, async () => {
    const l = load();
    await Bun.sleep(500);
    await cluster.stopServer();
    await Bun.sleep(2_000);
    // Both instances stay in the balancer: the database is down for all of them alike.
    let during: unknown[];
    try {
      during = [await healthOf(a), await healthOf(b)];
      await Bun.sleep(STOP_MS - 2_000);
    } finally {
      await cluster.startServer();
    }
    const up = performance.now();
    await Bun.sleep(3_000);
    const s = await l.stop();
    for (const h of during) expect(h).toMatchObject({ code: 200, db: "unavailable" });
    expect(s.refused).toBeGreaterThan(0);
    console.log(`stop ${STOP_MS} ms: ${s.redirects} redirects, ${s.failed.length} failed; ${s.acked.length} writes acknowledged, ${s.refused} refused; first write after the database answered: ${l.firstAckAfter(up).toFixed(0)} ms`);
    expect(s.failed.slice(0, 5)).toEqual([]);
    expect(s.otherWrite.slice(0, 5)).toEqual([]);
    expect(l.firstAckAfter(up)).toBeLessThan(WRITES_BACK_MS);
    await noneLost(s.acked);
    await Promise.all([untilHealthy(a), untilHealthy(b)]);
  });

  /** A link to edit behind the listeners' backs; its id. */
  async function fresh(code: string) {
    const r = await fetch(`${lb}/api/links`, { method: "POST", ...json({ originalUrl: `https://example.com/${code}/0`, title: "F", shortCode: code }, cookie) });
    expect(r.status).toBe(201);
    return ((await r.json()) as { id: number }).id;
  }

  /** Polls both instances directly until each serves `want` for `code`; health seen meanwhile. */
  async function servedByBoth(code: string, want: string, t0: number) {
    const health = new Set<string>();
    for (const i of [a, b]) {
      for (;;) {
        const got = await target(i.base, code);
        const h = await healthOf(i);
        health.add(`${h.code} ${h.redirects}`);
        if (got === want) break;
        if (typeof got === "number") throw new Error(`${i.base}/${code} answered ${got}`);
        if (performance.now() - t0 > CATCH_UP_MS) throw new Error(`${i.base}/${code} still answers ${got} after ${CATCH_UP_MS} ms`);
        await Bun.sleep(20);
      }
    }
    return { ms: performance.now() - t0, health: [...health] };
  }

  test(`the listeners killed (pg_terminate_backend): an edit made meanwhile is served by both within ${CATCH_UP_MS} ms, health stale only meanwhile`, async () => {
    const id = await fresh("killed");
    const l = load();
    await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN "threadlink_links"'`;
    const edit = await fetch(`${lb}/api/links/${id}`, { method: "PUT", ...json({ originalUrl: "https://example.com/killed/1", title: "F", description: "", expiresAt: null }, cookie) });
    expect(edit.status).toBe(200);
    const { ms, health } = await servedByBoth("killed", "https://example.com/killed/1", performance.now());
    const s = await l.stop();
    console.log(`listeners killed: served by both ${ms.toFixed(0)} ms after the edit's answer; health seen ${health.join(", ")}; ${s.failed.length} of ${s.redirects} redirects failed`);
    expect(health.filter((h) => h !== "200 ok" && h !== "503 stale")).toEqual([]);
    expect(s.failed.slice(0, 5)).toEqual([]);
    await Promise.all([untilHealthy(a), untilHealthy(b)]);
  });

  test(`one listener paused (SIGSTOP on its backend): its instance calls its map stale within a few seconds and serves a change made meanwhile within ${CATCH_UP_MS} ms`, async () => {
    await fresh("paused");
    const pids = ((await admin`SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN "threadlink_links"'`) as { pid: number }[]).map((r) => r.pid);
    expect(pids.length).toBe(2);
    const pid = pids[0]!;
    process.kill(pid, "SIGSTOP");
    try {
      // Written behind the app's back, so no write waits for a confirmation: one instance hears
      // of it at once, the paused one only once it has noticed the silence and caught up.
      await admin`UPDATE short_links SET original_url = 'https://example.com/paused/1' WHERE short_code = 'paused'`;
      const t0 = performance.now();
      const times: number[] = [];
      const health = new Set<string>();
      for (const i of [a, b]) {
        for (;;) {
          const got = await target(i.base, "paused");
          const h = await healthOf(i);
          health.add(`${h.code} ${h.redirects}`);
          if (got === "https://example.com/paused/1") break;
          if (got !== "https://example.com/paused/0") throw new Error(`${i.base}/paused answered ${got}`);
          if (performance.now() - t0 > CATCH_UP_MS) throw new Error(`${i.base}/paused still answers ${got} after ${CATCH_UP_MS} ms`);
          await Bun.sleep(20);
        }
        times.push(performance.now() - t0);
      }
      console.log(`one listener paused: the change served after ${times.map((t) => t.toFixed(0)).join(" and ")} ms; health seen ${[...health].join(", ")}`);
      // The paused one needed the heartbeat to notice (SILENT_MS, 3 s), the other did not.
      expect(Math.max(...times)).toBeGreaterThan(1_500);
      expect([...health].filter((h) => h !== "200 ok" && h !== "503 stale")).toEqual([]);
      await Promise.all([untilHealthy(a), untilHealthy(b)]);
    } finally {
      process.kill(pid, "SIGCONT");
      await admin`SELECT pg_terminate_backend(${pid})`.catch(() => {});
    }
  });

  test(`read-your-writes: ${READ_YOUR_WRITES} creates, edits and deletes through the balancer, each followed at once by a redirect through it: 0 stale answers`, async () => {
    const stale: string[] = [];
    let id = 0;
    let code = "";
    const t0 = performance.now();
    for (let n = 0; n < READ_YOUR_WRITES; n++) {
      let want: string | number;
      if (n % 3 === 0) {
        code = `ryw${n}`;
        want = `https://example.com/ryw/${n}`;
        const r = await fetch(`${lb}/api/links`, { method: "POST", ...json({ originalUrl: want, title: "R", shortCode: code }, cookie) });
        expect(r.status).toBe(201);
        id = ((await r.json()) as { id: number }).id;
      } else if (n % 3 === 1) {
        want = `https://example.com/ryw/${n}`;
        const r = await fetch(`${lb}/api/links/${id}`, { method: "PUT", ...json({ originalUrl: want, title: "R", description: "", expiresAt: null }, cookie) });
        expect(r.status).toBe(200);
      } else {
        want = 404;
        const r = await fetch(`${lb}/api/links/${id}`, { method: "DELETE", headers: { cookie } });
        expect(r.status).toBe(200);
      }
      const got = await target(lb, code);
      if (got !== want) stale.push(`${n}: ${code} answered ${got}, not ${want}`);
    }
    // A write answered before every instance confirmed it (follow.ts, ACK_WAIT_MS) is logged.
    const unconfirmed = [...a.log, ...b.log].filter((l) => l.includes("before every instance confirmed")).length;
    console.log(`read-your-writes: ${READ_YOUR_WRITES} cycles in ${Math.round(performance.now() - t0)} ms, ${stale.length} stale; writes answered unconfirmed (1 s bound): ${unconfirmed}`);
    if (stale.length) console.log(`stale: ${stale.slice(0, 10).join("; ")}`);
    expect(stale).toEqual([]);
  });

  test("kill -9 of one instance under load: < 0.1 % client errors, 0 acknowledged writes lost", async () => {
    const l = load();
    await Bun.sleep(1_000);
    b.proc.kill("SIGKILL");
    await b.proc.exited;
    await Bun.sleep(3_000);
    const s = await l.stop();
    const errors = s.failed.length + s.otherWrite.length;
    const total = s.redirects + s.writes;
    console.log(`kill -9: ${errors} client errors in ${total} requests (${((100 * errors) / total).toFixed(3)} %); ${s.acked.length} writes acknowledged`);
    expect(errors / total).toBeLessThan(0.001);
    await noneLost(s.acked);
  });

  test("every line both instances logged is JSON", () => {
    const bad = [...a.log, ...b.log].filter((line) => {
      try {
        return typeof JSON.parse(line) !== "object";
      } catch {
        return true;
      }
    });
    expect(bad.slice(0, 5)).toEqual([]);
    // The start-up line names the backend used, not a data folder it does not use.
    const start = JSON.parse(a.log.find((l) => l.includes('"listening"'))!) as Record<string, unknown>;
    expect(start).toMatchObject({ database: "postgres" });
    expect(start.dataDir).toBeUndefined();
  });
});
