// Two Threadlink processes on one throwaway PostgreSQL (scripts/lib/pgcluster.ts), for the tests
// that check what one instance writes is followed by the other (links/instances.pg.test.ts,
// smart/instances.pg.test.ts). Real processes on loopback: the compiled binary when
// THREADLINK_BINARY names one, else src/main.ts run by this Bun.
import { expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { type PgCluster, startCluster } from "../../scripts/lib/pgcluster";
import { PASSWORD } from "./helpers";

/** The bound every propagation is held to (issue 15). */
export const FOLLOW_MS = 100;

export type Instance = { base: string; proc: Bun.Subprocess; dir: string };

function freePort() {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

function startInstance(url: string): Instance {
  const dir = mkdtempSync(join(tmpdir(), "threadlink-inst-"));
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const binary = process.env.THREADLINK_BINARY;
  const proc = Bun.spawn(binary ? [binary, "serve"] : [process.execPath, join(import.meta.dir, "../main.ts"), "serve"], {
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dir, PUBLIC_URL: base, LOG_LEVEL: "error" },
    stdout: "ignore",
    stderr: "inherit",
  });
  return { base, proc, dir };
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

export type Twins = { cluster: PgCluster; admin: SQL; url: string; a: Instance; b: Instance };

/** A cluster, a database named `name`, an admin connection to it, and two instances on it, started together. */
export async function startTwins(name: string): Promise<Twins> {
  const cluster = await startCluster();
  const url = await cluster.createDatabase(name);
  const admin = new SQL({ url: cluster.adminUrl(name), max: 1 });
  // Started together on an empty database: the migration lock lets one migrate.
  const [a, b] = [startInstance(url), startInstance(url)];
  await Promise.all([ready(a), ready(b)]);
  return { cluster, admin, url, a, b };
}

/** One more instance on the twins' database, started and ready; stopped by the caller (stopInstance). */
export async function thirdInstance(t: Twins) {
  const i = startInstance(t.url);
  await ready(i);
  return i;
}

export async function stopInstance(i: Instance) {
  i.proc.kill("SIGTERM");
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
export async function target(on: Instance, code: string) {
  const r = await fetch(`${on.base}/${code}`, { method: "HEAD", redirect: "manual" });
  return r.status === 302 ? r.headers.get("location")! : r.status;
}
