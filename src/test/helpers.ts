// Server test helper: the real app on a real database with every migration applied — a SQLite
// file in a temp dir, or with TEST_BACKEND=postgres a fresh database in a throwaway PostgreSQL
// cluster (scripts/lib/pgcluster.ts), copied from one migrated template per test process.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "bun:test";
import { loadConfig } from "../config";
import type { Db } from "../db/open";
import type { Database } from "../db/database";
import { openDatabase } from "../db/connect";
import { migratePg, openPg } from "../db/pg";
import { createApp } from "../app";
import { type PgCluster, startCluster } from "../../scripts/lib/pgcluster";

/** Which backend this test process runs on (scripts/test.sh runs the suite once per backend). */
export const onPostgres = process.env.TEST_BACKEND === "postgres";

const TEMPLATE = "tl_template";
let cluster: Promise<PgCluster> | null = null;

/** The cluster of this test process, started at first use with a migrated template database. */
export function testCluster(): Promise<PgCluster> {
  cluster ??= (async () => {
    const c = await startCluster();
    const pool = openPg(await c.createDatabase(TEMPLATE), { max: 1 });
    try {
      await migratePg(pool);
    } finally {
      await pool.close();
    }
    return c;
  })();
  return cluster;
}

/** A new migrated PostgreSQL database of this process's cluster; its URL. */
export async function testDatabaseUrl() {
  return (await testCluster()).createDatabase(undefined, { template: TEMPLATE });
}

export const ORIGIN = "http://localhost:3000";
export const PASSWORD = "correct horse battery";

type Json = Record<string, unknown> | unknown[] | string | number | boolean | null;

/** `wrap`: what the app is given in place of its database (a test that watches its statements). */
export async function setup(env: Record<string, string> = {}, { wrap }: { wrap?: (db: Database) => Database } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "threadlink-test-"));
  const backend = onPostgres ? { DATABASE_URL: await testDatabaseUrl() } : {};
  // The per-user heavy-call limit is off unless a test sets it: suites make hundreds of
  // analytics, bulk and import calls as one user within a minute (src/http/heavyLimit.test.ts).
  const config = loadConfig({ DATA_DIR: dir, PUBLIC_URL: ORIGIN, HEAVY_RATE_LIMIT: "0", ...backend, ...env });
  const { db: database } = await openDatabase(config);
  /** The bun:sqlite handle, for SQLite-only tests (null on PostgreSQL: use `database`). */
  const db = database.sqlite as Db;
  const { app, ctx, clicks, events } = await createApp({ db: wrap ? wrap(database) : database, config });
  afterAll(async () => {
    for (const hook of ctx.shutdownHooks) await hook();
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * One request through the real app. `body` objects are sent as JSON; a string is sent
   * as-is (for malformed JSON). `cookie` is a session as returned by `signUp`.
   */
  async function call(
    method: string,
    path: string,
    opts: { body?: Json | undefined; raw?: string; cookie?: string; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = { host: "localhost:3000", ...opts.headers };
    if (opts.cookie) headers.cookie = opts.cookie;
    let body: string | undefined;
    if (opts.raw !== undefined) {
      body = opts.raw;
      headers["content-type"] ??= "application/json";
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await app.handle(new Request(`${ORIGIN}${path}`, { method, headers, body }));
    // Decoded as an HTTP client's fetch().text() does (a BOM dropped): Bun's Response.text() of a
    // direct stream (downloads, src/db/reader.ts) keeps it.
    const text = new TextDecoder().decode(await res.arrayBuffer());
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, json, text, headers: res.headers };
  }

  /** Registers a user and returns its session cookie ("tl_session=…") and user. */
  async function signUp(username: string, email = `${username}@example.test`) {
    const r = await call("POST", "/api/register", { body: { username, password: PASSWORD, email } });
    if (r.status !== 201) throw new Error(`sign-up failed: ${r.status} ${r.text}`);
    const cookie = (r.headers.get("set-cookie") ?? "").split(";")[0]!;
    return { cookie, user: r.json.user as { id: number; username: string } };
  }

  /** Row count of a table, for "nothing changed" assertions. */
  const count = async (table: string) => (await database.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n;

  /** Waits until every click captured so far is written (the recorder's flush, not a sleep). */
  const settle = async () => {
    if (!(await clicks.flush())) throw new Error("click flush failed");
  };
  return { app, ctx, clicks, events, settle, db, database, config, call, signUp, count, dir };
}

/** Hostile strings every text field must survive as plain data. */
export const HOSTILE = {
  script: `<script>alert("x")</script>`,
  sql: `'; DROP TABLE users; --`,
  emoji: "🧵🔗✨ naïve café",
  huge: "x".repeat(10_000),
  nul: "a\u0000b",
};
