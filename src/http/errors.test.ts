// PostgreSQL's errors through the one error handler, each caused for real on a real server
// (TEST_BACKEND=postgres): what is the request's fault is a 4xx, what is the environment's a 503,
// and anything else stays a 500 without the database's words. SQLite's: src/faults.test.ts.
import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { SQL } from "bun";
import { onPostgres, setup, testCluster } from "../test/helpers";
import { BUSY_MESSAGE, BUSY_RETRY_AFTER_S } from "../db/faults";
import { errorHandler } from "./errors";

describe.skipIf(!onPostgres)("PostgreSQL errors as answers", async () => {
  const t = await setup();
  // The body runs even when skipped (SQLite): nothing here may need PostgreSQL.
  const name = onPostgres ? new URL(t.config.databaseUrl!).pathname.slice(1) : "";
  const app = new Elysia()
    .use(errorHandler)
    .get("/nul", () => t.database.get("SELECT ?::text AS v", "a\u0000b"))
    .get("/locked", () =>
      t.database.tx(async (q) => {
        // As a statement would meet a row another instance holds: give up at once.
        await q.run("SET LOCAL lock_timeout = '50ms'");
        return q.get("SELECT id FROM users FOR UPDATE");
      }),
    )
    .get("/broken", () => t.database.get("SELECT no_such_column FROM users"));
  const call = async (path: string) => {
    const r = await app.handle(new Request(`http://localhost${path}`));
    return { status: r.status, json: await r.json(), retry: r.headers.get("retry-after") };
  };

  test("text with U+0000, which PostgreSQL cannot store: 400, not 500", async () => {
    expect(await call("/nul")).toEqual({ status: 400, json: { error: { code: "BAD_REQUEST", message: "Text must not contain the NUL character (U+0000)" } }, retry: null });
  });

  test("a row lock held past lock_timeout: 503 busy with Retry-After", async () => {
    await t.signUp("locked");
    const other = new SQL({ url: (await testCluster()).adminUrl(name), max: 1 });
    try {
      await other.begin(async (tx) => {
        await tx`SELECT id FROM users FOR UPDATE`;
        expect(await call("/locked")).toEqual({ status: 503, json: { error: { code: "UNAVAILABLE", message: BUSY_MESSAGE } }, retry: String(BUSY_RETRY_AFTER_S) });
      });
    } finally {
      await other.close();
    }
  });

  test("a statement that is simply wrong stays a 500 that names nothing of the database", async () => {
    const r = await call("/broken");
    expect(r).toEqual({ status: 500, json: { error: { code: "INTERNAL", message: "Something went wrong on our side. Please try again." } }, retry: null });
  });
});
