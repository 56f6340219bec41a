import { describe, expect, test } from "bun:test";
import { onPostgres, setup } from "../test/helpers";
import { notificationsStore, sqliteNotifications } from "./store";

const t = await setup();
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");
const store = notificationsStore(t.database);
const a1 = (await store.create({ userId: alice.user.id, kind: "test", message: "first", link: "/" }))!;
const a2 = (await store.create({ userId: alice.user.id, kind: "test", message: "second" }))!;
const b1 = (await store.create({ userId: bob.user.id, kind: "test", message: "bob's" }))!;
const readAt = async (id: number) => (await t.database.get<{ read_at: string | null }>("SELECT read_at FROM notifications WHERE id = ?", id))!.read_at;

describe("notifications API", () => {
  test("lists only the caller's, newest first, with the unread count", async () => {
    const r = await t.call("GET", "/api/notifications", { cookie: alice.cookie });
    expect(r.status).toBe(200);
    expect(r.json.notifications.map((n: { message: string }) => n.message)).toEqual(["second", "first"]);
    expect(r.json.unreadCount).toBe(2);
    expect((await t.call("GET", "/api/notifications")).status).toBe(401);
  });

  test("marks one read; another user's is 404 and unchanged", async () => {
    const r = await t.call("POST", `/api/notifications/${a1.id}/read`, { cookie: alice.cookie });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id: a1.id, read: true });
    expect(await readAt(a1.id)).not.toBeNull();
    const other = await t.call("POST", `/api/notifications/${b1.id}/read`, { cookie: alice.cookie });
    expect(other.status).toBe(404);
    expect(await readAt(b1.id)).toBeNull();
    for (const id of ["abc", "0", "-1", "99999", "2147483648", "999999999999999", "1e3"]) {
      expect((await t.call("POST", `/api/notifications/${id}/read`, { cookie: alice.cookie })).status).toBe(404);
    }
  });

  test("marks all read for the caller only", async () => {
    const r = await t.call("POST", "/api/notifications/read-all", { cookie: alice.cookie });
    expect(r.json).toEqual({ ok: true, updated: 1 });
    expect(await readAt(a2.id)).not.toBeNull();
    expect(await readAt(b1.id)).toBeNull();
    expect((await t.call("GET", "/api/notifications", { cookie: alice.cookie })).json.unreadCount).toBe(0);
  });

  test("premium ending within 3 days raises one notice per term", async () => {
    const u = await t.signUp("ending");
    const ends = new Date(Date.now() + 2 * 86_400_000).toISOString();
    await t.ctx.accounts.setPlan(u.user.id, "premium", ends);
    await t.call("GET", "/api/notifications", { cookie: u.cookie });
    const r = await t.call("GET", "/api/notifications", { cookie: u.cookie });
    expect(r.json.notifications).toHaveLength(1);
    expect(r.json.notifications[0]).toMatchObject({ kind: "premium_ending", link: "/pricing" });
    expect(r.json.notifications[0].message).toStartWith("Your Premium plan ends on ");

    const far = await t.signUp("farend");
    await t.ctx.accounts.setPlan(far.user.id, "premium", new Date(Date.now() + 10 * 86_400_000).toISOString());
    expect((await t.call("GET", "/api/notifications", { cookie: far.cookie })).json.notifications).toHaveLength(0);
  });
});

// The SQLite click worker writes milestone notices on its own connection, inside its own
// synchronous transaction (src/analytics/writer.ts); PostgreSQL's writer uses the async store.
describe.skipIf(onPostgres)("sqliteNotifications (the SQLite click worker's path)", () => {
  test("adds synchronously, with the same dedupe rule", async () => {
    const sync = sqliteNotifications(t.db);
    const u = await t.signUp("milestones");
    sync.add({ userId: u.user.id, kind: "link-clicks", message: "first click", link: "/link-tracker" });
    sync.add({ userId: u.user.id, kind: "link-clicks", message: "passed 100", dedupeKey: "m:100" });
    sync.add({ userId: u.user.id, kind: "link-clicks", message: "passed 100 again", dedupeKey: "m:100" });
    expect((await store.page(u.user.id, { unread: false, limit: 50, after: null })).rows.map((n) => [n.message, n.link])).toEqual([
      ["passed 100", null],
      ["first click", "/link-tracker"],
    ]);
  });
});
