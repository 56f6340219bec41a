// Unique-constraint violations become CONFLICT errors inside the stores (issue 14): by the
// SQLite result code, never by the message text, and the routes only pass them on.
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { AppError } from "../shared/errors";
import { linksStore } from "../links/store";
import { randomPhone, topicsStore } from "../topics/store";
import { PASSWORD, setup } from "../test/helpers";
import { isUniqueViolation, uniqueOr } from "./constraints";

const failure = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error("did not throw");
};

describe("isUniqueViolation", () => {
  const db = new Database(":memory:");
  db.run("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT UNIQUE, b TEXT NOT NULL)");
  db.run("INSERT INTO t (id, a, b) VALUES (1, 'x', 'y')");

  test("a UNIQUE column and a PRIMARY KEY clash are violations", () => {
    expect(isUniqueViolation(failure(() => db.run("INSERT INTO t (id, a, b) VALUES (2, 'x', 'y')")))).toBe(true);
    expect(isUniqueViolation(failure(() => db.run("INSERT INTO t (id, a, b) VALUES (1, 'z', 'y')")))).toBe(true);
  });

  test("other constraint failures and look-alike errors are not", () => {
    expect(isUniqueViolation(failure(() => db.run("INSERT INTO t (id, a) VALUES (3, 'q')")))).toBe(false);
    expect(isUniqueViolation(new Error("UNIQUE constraint failed: t.a"))).toBe(false);
    expect(isUniqueViolation("UNIQUE")).toBe(false);
    expect(isUniqueViolation(null)).toBe(false);
  });

  test("uniqueOr returns the write's value, maps the clash and rethrows anything else untouched", async () => {
    const clash = () => new AppError("CONFLICT", "taken", { a: "taken" });
    const write = (sql: string) => async () => db.run(sql).changes;
    expect(await uniqueOr(write("INSERT INTO t (id, a, b) VALUES (4, 'w', 'y')"), clash)).toBe(1);
    const mapped = await uniqueOr(write("INSERT INTO t (id, a, b) VALUES (5, 'w', 'y')"), clash).catch((e) => e);
    expect(mapped).toBeInstanceOf(AppError);
    expect(mapped).toMatchObject({ code: "CONFLICT", status: 409, fields: { a: "taken" } });
    const other = await uniqueOr(write("INSERT INTO t (id, a) VALUES (6, 'v')"), clash).catch((e) => e);
    expect(other).not.toBeInstanceOf(AppError);
    expect((other as { code: string }).code).toBe("SQLITE_CONSTRAINT_NOTNULL");
  });
});

// On both backends: SQLite's result code and PostgreSQL's SQLSTATE give the same CONFLICT.
describe("stores answer a clash with CONFLICT and the field at fault", async () => {
  const t = await setup();
  const alice = await t.signUp("alice");
  const links = linksStore(t.database);
  const link = { originalUrl: "https://example.com/a", title: "A", description: "", expiresAt: null };

  test("links: creating or renaming onto a taken code (the route's check raced) changes nothing", async () => {
    const first = await links.create(alice.user.id, "main", { ...link, shortCode: "raced-code" });
    const other = await links.create(alice.user.id, "brand", { ...link, shortCode: "other-code" });
    const before = await t.count("short_links");
    const again = await links.create(alice.user.id, "brand", { ...link, shortCode: "raced-code" }).catch((e) => e);
    expect(again).toMatchObject({ code: "CONFLICT", message: "That short code is already taken", fields: { shortCode: "That short code is already taken" } });
    const rename = await links.update(other.id, alice.user.id, "brand", { ...link, shortCode: first.short_code }).catch((e) => e);
    expect(rename).toMatchObject({ code: "CONFLICT", fields: { shortCode: "That short code is already taken" } });
    expect(await t.count("short_links")).toBe(before);
    expect((await links.get(other.id, alice.user.id, "brand"))!.short_code).toBe("other-code");
  });

  test("accounts: two sign-ups racing for one username: one account, the other a CONFLICT on username", async () => {
    const before = await t.count("users");
    const body = (email: string) => ({ body: { username: "racer", password: PASSWORD, email } });
    const rs = await Promise.all([t.call("POST", "/api/register", body("r1@example.test")), t.call("POST", "/api/register", body("r2@example.test"))]);
    expect(rs.map((r) => r.status).sort()).toEqual([201, 409]);
    const lost = rs.find((r) => r.status === 409)!;
    expect(lost.json).toEqual({ error: { code: "CONFLICT", message: "That username is already taken", fields: { username: "That username is already taken" } } });
    expect(await t.count("users")).toBe(before + 1);
  });

  test("accounts: two sign-ups racing for one email: the loser's CONFLICT names the email", async () => {
    const body = (username: string) => ({ body: { username, password: PASSWORD, email: "Same@example.test" } });
    const rs = await Promise.all([t.call("POST", "/api/register", body("mailone")), t.call("POST", "/api/register", body("mailtwo"))]);
    expect(rs.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(rs.find((r) => r.status === 409)!.json.error).toMatchObject({ code: "CONFLICT", fields: { email: "An account with that email already exists" } });
  });

  test("titles: moving a version onto a number its new series has is a CONFLICT on name", async () => {
    const topic = await topicsStore(t.database).create(alice.user.id, { name: "Race Notes", emoji: null }, () => randomPhone("+1555"));
    const path = `/api/alice/${topic.linkSlug}/titles`;
    expect((await t.call("POST", path, { body: { name: "Groceries", version: 1 }, cookie: alice.cookie })).status).toBe(201);
    const lone = (await t.call("POST", path, { body: { name: "Errands", version: 1 }, cookie: alice.cookie })).json as { id: number };
    const r = await t.call("PUT", `${path}/${lone.id}`, { body: { name: "Groceries" }, cookie: alice.cookie });
    const msg = "Message 1 already exists in the title 'Groceries'";
    expect(r.status).toBe(409);
    expect(r.json).toEqual({ error: { code: "CONFLICT", message: msg, fields: { name: msg } } });
    expect(await t.database.get("SELECT name FROM titles WHERE id = ?", lone.id)).toEqual({ name: "Errands" });
  });
});
