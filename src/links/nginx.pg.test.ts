// Two Threadlink processes on one PostgreSQL behind nginx running deploy/nginx.conf (issue 22),
// as src/links/failover.pg.test.ts does for haproxy: the database restarted and stopped under
// redirect and write load, one instance answering 503 while the other works, one killed with
// -9. The two-instance harness (src/test/instances.ts), nginx from Debian
// (scripts/ensure-balancers.sh) run from the shipped file (scripts/lib/nginx.ts), whose log of
// each request's upstream answers ("503, 201") shows what nginx tried.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SQL } from "bun";
import { startNginx, upstreamLog } from "../../scripts/lib/nginx";
import { PASSWORD } from "../test/helpers";
import { freePort, type Instance, json, load, lostWrites, startTwins, stopInstance, stopTwins, targetAt, thirdInstance, type Twins, untilHealthy } from "../test/instances";

setDefaultTimeout(60_000);
/** Writes answer again within this of the database answering (issue 22). */
const WRITES_BACK_MS = 2_000;
/** A role of its own for the instance that answers 503 (its sessions made read-only mid-test). */
const RO_ROLE = "threadlink_ro";

let twins: Twins;
let admin: SQL;
let a: Instance;
let b: Instance;
/** On the same database as RO_ROLE. */
let c: Instance;
const nginx: Bun.Subprocess[] = [];
let dir: string;
/** nginx in front of A and B; nginx in front of C (first) and A. */
let lb: string;
let lbRo: string;
let cookie: string;
const steady = new Map<string, string>();

beforeAll(async () => {
  twins = await startTwins("nginx");
  ({ admin, a, b } = twins);
  // A member of the app's role: the same tables, and sessions this test can make read-only.
  await admin.unsafe(`CREATE ROLE ${RO_ROLE} LOGIN PASSWORD 'ro' IN ROLE threadlink`);
  const roUrl = new URL(twins.url);
  roUrl.username = RO_ROLE;
  roUrl.password = "ro";
  c = await thirdInstance(twins, roUrl.href);
  dir = mkdtempSync(join(tmpdir(), "threadlink-nginx-"));
  const [p1, p2] = [freePort(), freePort()];
  nginx.push(await startNginx(dir, p1, [a.port, b.port]), await startNginx(dir, p2, [c.port, a.port]));
  lb = `http://127.0.0.1:${p1}`;
  lbRo = `http://127.0.0.1:${p2}`;
  const r = await fetch(`${lb}/api/register`, { method: "POST", ...json({ username: "ngx", password: PASSWORD, email: "ngx@example.test" }) });
  expect(r.status).toBe(201);
  cookie = r.headers.get("set-cookie")!.split(";")[0]!;
  for (let i = 0; i < 20; i++) {
    const dest = `https://example.com/steady/${i}`;
    expect((await fetch(`${lb}/api/links`, { method: "POST", ...json({ originalUrl: dest, title: "Steady", shortCode: `steady${i}` }, cookie) })).status).toBe(201);
    steady.set(`steady${i}`, dest);
  }
}, 120_000);

afterAll(async () => {
  for (const p of nginx) p.kill();
  await Promise.all(nginx.map((p) => p.exited));
  if (c) await stopInstance(c);
  await stopTwins(twins);
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe("two instances behind nginx (deploy/nginx.conf)", () => {
  test("pg_ctl restart -m fast under load: 0 failed redirects through nginx, writes back within 2 s, 0 acknowledged writes lost", async () => {
    const l = load(lb, cookie, steady);
    await Bun.sleep(1_000);
    await twins.cluster.restartServer();
    const up = performance.now();
    await Bun.sleep(3_000);
    const s = await l.stop();
    console.log(`nginx, restart: ${s.redirects} redirects, ${s.failed.length} failed; ${s.writes} writes, ${s.acked.length} acknowledged, ${s.refused} refused with 503 + Retry-After; first write after the database answered: ${l.firstAckAfter(up).toFixed(0)} ms`);
    expect(s.failed.slice(0, 5)).toEqual([]);
    expect(s.otherWrite.slice(0, 5)).toEqual([]);
    expect(l.firstAckAfter(up)).toBeLessThan(WRITES_BACK_MS);
    expect(await lostWrites(admin, s.acked)).toBe(0);
    await Promise.all([untilHealthy(a), untilHealthy(b), untilHealthy(c)]);
  });

  test("the database stopped: redirects served through nginx; a write, tried on both instances, reaches the client as the app's 503 with its JSON body and Retry-After", async () => {
    await twins.cluster.stopServer();
    let write: Response;
    let body: unknown;
    const redirects: (string | number)[] = [];
    try {
      // The pools notice the database is gone at their next query: one write each first.
      for (const on of [a, b]) await fetch(`${on.base}/api/links`, { method: "POST", ...json({ originalUrl: "https://example.com/x", title: "X" }, cookie) });
      write = await fetch(`${lb}/api/links`, { method: "POST", ...json({ originalUrl: "https://example.com/down", title: "Down", shortCode: "while-down" }, cookie) });
      body = await write.json();
      for (const code of [...steady.keys()].slice(0, 6)) redirects.push(await targetAt(lb, code));
    } finally {
      await twins.cluster.startServer();
    }
    expect(write.status).toBe(503);
    expect(Number(write.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(write.headers.get("content-type")).toContain("application/json");
    expect(body).toMatchObject({ error: { code: "UNAVAILABLE" } });
    expect(redirects).toEqual([...steady.values()].slice(0, 6));
    // nginx tried the other instance before passing the 503 on.
    expect(upstreamLog(dir).filter((l) => l.startsWith("POST /api/links 503")).at(-1)).toBe("POST /api/links 503 [503, 503]");
    await Promise.all([untilHealthy(a), untilHealthy(b), untilHealthy(c)]);
  });

  test("one instance answers 503 (its database sessions read-only), the other works: every write through nginx succeeds, tried on the other", async () => {
    await admin.unsafe(`ALTER ROLE ${RO_ROLE} SET default_transaction_read_only = on`);
    await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = ${RO_ROLE}`;
    try {
      // C's pool opens new, read-only sessions: its writes answer 503.
      let direct = 0;
      for (let n = 0; n < 20 && direct !== 503; n++) {
        direct = (await fetch(`${c.base}/api/links`, { method: "POST", ...json({ originalUrl: "https://example.com/ro", title: "RO" }, cookie) })).status;
        if (direct !== 503) await Bun.sleep(100);
      }
      expect(direct).toBe(503);
      const before = upstreamLog(dir).length;
      const made: string[] = [];
      for (let n = 0; n < 10; n++) {
        const r = await fetch(`${lbRo}/api/links`, { method: "POST", ...json({ originalUrl: `https://example.com/ro/${n}`, title: "Retried", shortCode: `retried${n}` }, cookie) });
        expect(r.status).toBe(201);
        made.push(`retried${n}`);
      }
      const lines = upstreamLog(dir).slice(before).filter((l) => l.startsWith("POST /api/links"));
      // Round robin: about half went to C first, answered 503 and went on to A.
      expect(lines.filter((l) => l === "POST /api/links 201 [503, 201]").length).toBeGreaterThan(0);
      expect(lines.every((l) => l === "POST /api/links 201 [201]" || l === "POST /api/links 201 [503, 201]")).toBe(true);
      expect(await lostWrites(admin, made)).toBe(0);
      for (const code of made) expect(await targetAt(lbRo, code)).toMatch(/^https:\/\/example\.com\/ro\/\d$/);
    } finally {
      await admin.unsafe(`ALTER ROLE ${RO_ROLE} RESET default_transaction_read_only`);
      await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = ${RO_ROLE}`;
    }
  });

  test("kill -9 of one instance under load: its refused connections tried on the other, < 0.1 % client errors, 0 acknowledged writes lost", async () => {
    const l = load(lb, cookie, steady);
    await Bun.sleep(1_000);
    b.proc.kill("SIGKILL");
    await b.proc.exited;
    await Bun.sleep(3_000);
    const s = await l.stop();
    const errors = s.failed.length + s.otherWrite.length;
    const total = s.redirects + s.writes;
    console.log(`nginx, kill -9: ${errors} client errors in ${total} requests (${((100 * errors) / total).toFixed(3)} %); ${s.acked.length} writes acknowledged`);
    expect(errors / total).toBeLessThan(0.001);
    expect(await lostWrites(admin, s.acked)).toBe(0);
  });
});
