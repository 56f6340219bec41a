// Server test helper: a real SQLite file in a temp dir, every migration applied, the real app.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "bun:test";
import { loadConfig } from "../config";
import { openDb, type Db } from "../db/open";
import { migrate } from "../db/migrate";
import { createApp } from "../app";

export const ORIGIN = "http://localhost:3000";
export const PASSWORD = "correct horse battery";

type Json = Record<string, unknown> | unknown[] | string | number | boolean | null;

export async function setup(env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "threadlink-test-"));
  const config = loadConfig({ DATA_DIR: dir, PUBLIC_URL: ORIGIN, ...env });
  const db: Db = openDb(config.dataDir);
  migrate(db);
  const { app, ctx } = await createApp({ db, config });
  afterAll(() => {
    db.close();
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
    const text = await res.text();
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
  const count = (table: string) => (db.query(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

  return { app, ctx, db, config, call, signUp, count, dir };
}

/** Hostile strings every text field must survive as plain data. */
export const HOSTILE = {
  script: `<script>alert("x")</script>`,
  sql: `'; DROP TABLE users; --`,
  emoji: "🧵🔗✨ naïve café",
  huge: "x".repeat(10_000),
  nul: "a\u0000b",
};
