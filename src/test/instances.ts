// Two Threadlink processes on one throwaway PostgreSQL (scripts/lib/pgcluster.ts), for the tests
// that run several instances: what one writes is followed by the other (links/instances.pg.test.ts,
// smart/instances.pg.test.ts), webhooks delivered once (webhooks/webhooks.pg.test.ts), and the
// fail-over tests behind haproxy and nginx (links/failover.pg.test.ts, links/nginx.pg.test.ts),
// whose load through a balancer is here too. Real processes on loopback: the compiled binary
// when THREADLINK_BINARY names one, else src/main.ts run by this Bun.
import { expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { type PgCluster, startCluster } from "../../scripts/lib/pgcluster";
import { PASSWORD } from "./helpers";

/** The bound every propagation is held to (issue 15). */
export const FOLLOW_MS = 100;

/** `log`: the lines it wrote to stderr, when started with `logs` (else they go to the test's stderr). */
export type Instance = { base: string; port: number; proc: Bun.Subprocess; dir: string; log: string[] };

export function freePort() {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

/** How an instance is started: `logs`, LOG_LEVEL=info with every line of stdout and stderr kept in `log` (to check it is JSON, or find one); `env`, variables of its own. */
type StartOptions = { logs?: boolean; env?: Record<string, string> };

/** `at`: the port and folder of an instance that stopped (restartInstance); else new ones. */
function startInstance(url: string, { logs = false, env = {} }: StartOptions = {}, at?: { port: number; dir: string; log: string[] }): Instance {
  const dir = at?.dir ?? mkdtempSync(join(tmpdir(), "threadlink-inst-"));
  const port = at?.port ?? freePort();
  const base = `http://127.0.0.1:${port}`;
  const binary = process.env.THREADLINK_BINARY;
  const proc = Bun.spawn(binary ? [binary, "serve"] : [process.execPath, join(import.meta.dir, "../main.ts"), "serve"], {
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dir, PUBLIC_URL: base, LOG_LEVEL: logs ? "info" : "error", ...env },
    stdout: logs ? "pipe" : "ignore",
    stderr: logs ? "pipe" : "inherit",
    stdin: "ignore",
  });
  const log: string[] = at?.log ?? [];
  // Both streams: a line Bun or a library prints to stdout is in the log an operator collects too.
  if (logs) for (const s of [proc.stdout, proc.stderr]) void keepLines(s as ReadableStream<Uint8Array>, log);
  return { base, port, proc, dir, log };
}

async function keepLines(stream: ReadableStream<Uint8Array>, into: string[]) {
  let rest = "";
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    rest += decoder.decode(value, { stream: true });
    const lines = rest.split("\n");
    rest = lines.pop()!;
    into.push(...lines.filter((l) => l.trim()));
  }
  if (rest.trim()) into.push(rest);
}

async function ready(i: Instance) {
  // Running from source, the server bundles the web app before it listens.
  for (let n = 0; ; n++) {
    if ((await fetch(`${i.base}/api/health`).catch(() => null))?.ok) return;
    if (i.proc.exitCode !== null) throw new Error(`the instance at ${i.base} exited with ${i.proc.exitCode}`);
    if (n > 600) throw new Error(`the instance at ${i.base} did not start`);
    await Bun.sleep(100);
  }
}

export type Twins = { cluster: PgCluster; admin: SQL; url: string; opts: StartOptions; a: Instance; b: Instance };

/** A cluster, a database named `name`, an admin connection to it, and two instances on it, started together. */
export async function startTwins(name: string, opts: StartOptions = {}): Promise<Twins> {
  const cluster = await startCluster();
  const url = await cluster.createDatabase(name);
  const admin = new SQL({ url: cluster.adminUrl(name), max: 1 });
  // Started together on an empty database: the migration lock lets one migrate.
  const [a, b] = [startInstance(url, opts), startInstance(url, opts)];
  await Promise.all([ready(a), ready(b)]);
  return { cluster, admin, url, opts, a, b };
}

/**
 * One more instance on the twins' database, started as they were (`url`: as another role),
 * and ready; stopped by the caller (stopInstance), or put in place of a killed twin.
 */
export async function thirdInstance(t: Twins, url = t.url) {
  const i = startInstance(url, t.opts);
  await ready(i);
  return i;
}

/**
 * Stops twin `i` with `signal` (SIGTERM: a graceful stop, its clicks written; SIGKILL: a crash)
 * and starts it again on the same port (a balancer's server line names it) and folder, ready.
 * The same object, its `proc` the new process; its log goes on in `log`.
 */
export async function restartInstance(t: Twins, i: Instance, signal: "SIGTERM" | "SIGKILL") {
  if (i.proc.exitCode === null && i.proc.signalCode === null) i.proc.kill(signal);
  await i.proc.exited;
  Object.assign(i, startInstance(t.url, t.opts, i));
  await ready(i);
}

export async function stopInstance(i: Instance) {
  if (i.proc.exitCode === null && i.proc.signalCode === null) i.proc.kill("SIGTERM");
  await i.proc.exited;
  rmSync(i.dir, { recursive: true, force: true });
}

export async function stopTwins(t: Partial<Twins> | undefined) {
  for (const i of [t?.a, t?.b]) if (i) await stopInstance(i);
  await t?.admin?.close();
  await t?.cluster?.stop();
}

export const json = (body: unknown, cookie?: string) => ({
  headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
  body: JSON.stringify(body),
});

export async function signUp(on: Instance, username: string) {
  const r = await fetch(`${on.base}/api/register`, { method: "POST", ...json({ username, password: PASSWORD, email: `${username}@example.test` }) });
  expect(r.status).toBe(201);
  return r.headers.get("set-cookie")!.split(";")[0]!;
}

/** Where `code` sends a visitor on `on` now: the Location, or the status when no redirect. */
export const target = (on: Instance, code: string) => targetAt(on.base, code);

/** Where `code` sends a visitor through `base` (an instance or a balancer) now: the Location, or the status. */
export async function targetAt(base: string, code: string) {
  const r = await fetch(`${base}/${code}`, { method: "HEAD", redirect: "manual" });
  return r.status === 302 ? r.headers.get("location")! : r.status;
}

/**
 * Redirects (4 loops on `steady`: code → destination, never changed) and creates (1 loop)
 * through `lb` until stopped. A redirect fails unless it is the link's 302; a create is
 * acknowledged by a 201 (its code kept, to be found in the database afterwards) and may be
 * refused with a 503 that carries Retry-After while the database is away.
 */
export function load(lb: string, cookie: string, steady: Map<string, string>) {
  const codes = [...steady.keys()];
  let running = true;
  const stats = { redirects: 0, failed: [] as string[], writes: 0, acked: [] as string[], refused: 0, otherWrite: [] as string[], lastRefusedAt: 0 };
  const acks: number[] = [];
  const redirects = Array.from({ length: 4 }, async (_, k) => {
    for (let n = k; running; n++) {
      const code = codes[n % codes.length]!;
      const got = await targetAt(lb, code).catch((e) => `error ${e}`);
      stats.redirects++;
      if (got !== steady.get(code)) stats.failed.push(`${code}: ${got}`);
    }
  });
  const writes = (async () => {
    for (let n = 0; running; n++) {
      const code = `w${Date.now().toString(36)}${n}`;
      const r = await fetch(`${lb}/api/links`, { method: "POST", ...json({ originalUrl: `https://example.com/w/${n}`, title: "W", shortCode: code }, cookie) }).catch(() => null);
      stats.writes++;
      if (r?.status === 201) {
        stats.acked.push(code);
        acks.push(performance.now());
      } else if (r?.status === 503 && r.headers.get("retry-after")) {
        stats.refused++;
        stats.lastRefusedAt = performance.now();
        await Bun.sleep(50);
      } else stats.otherWrite.push(`${r?.status ?? "no answer"} ${r ? await r.text() : ""}`);
    }
  })();
  return {
    stats,
    /** Milliseconds from `t` to the first write acknowledged after it (NaN: none). */
    firstAckAfter: (t: number) => (acks.find((x) => x >= t) ?? Number.NaN) - t,
    async stop() {
      running = false;
      await Promise.all([...redirects, writes]);
      return stats;
    },
  };
}

/** How many of the acknowledged codes are not in the database (0: none lost). */
export async function lostWrites(admin: SQL, codes: string[]) {
  if (codes.length === 0) return 0;
  const rows = (await admin`SELECT short_code FROM short_links WHERE short_code IN ${admin(codes)}`) as { short_code: string }[];
  return codes.length - rows.length;
}

export async function healthOf(i: Instance) {
  const r = await fetch(`${i.base}/api/health`);
  const { db, redirects } = (await r.json()) as { db: string; redirects: string };
  return { code: r.status, db, redirects };
}

export async function untilHealthy(i: Instance, ms = 10_000) {
  const t0 = performance.now();
  for (;;) {
    const h = await healthOf(i);
    if (h.code === 200 && h.db === "ok" && h.redirects === "ok") return;
    if (performance.now() - t0 > ms) throw new Error(`${i.base} not healthy: ${JSON.stringify(h)}`);
    await Bun.sleep(50);
  }
}
