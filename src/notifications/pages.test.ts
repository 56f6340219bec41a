// Notifications page by page (issue 21): keyset cursors, a total, the unread filter, the rules.
import { describe, expect, test } from "bun:test";
import { setup } from "../test/helpers";
import { notificationsStore } from "./store";

const t = await setup();
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");
const store = notificationsStore(t.database);
for (let i = 0; i < 120; i++) await store.create({ userId: alice.user.id, kind: "test", message: `n${i}` });
await store.create({ userId: bob.user.id, kind: "test", message: "bob's" });
const get = (q: string, cookie = alice.cookie) => t.call("GET", `/api/notifications${q}`, { cookie });

describe("GET /api/notifications pages", () => {
  test("50 newest by default with the total; cursors reach all 120 once, newest first", async () => {
    const r = await get("");
    expect(r.json.notifications).toHaveLength(50);
    expect(r.json.notifications[0].message).toBe("n119");
    expect(r.headers.get("x-total-count")).toBe("120");
    expect(r.json.unreadCount).toBe(120);
    const seen: string[] = [];
    for (let cursor: string | null = "", n = 0; cursor !== null && n < 20; n++) {
      const p = await get(`?limit=33&cursor=${cursor}`);
      seen.push(...p.json.notifications.map((x: { message: string }) => x.message));
      cursor = p.headers.get("x-next-cursor");
    }
    expect(seen).toEqual(Array.from({ length: 120 }, (_, i) => `n${119 - i}`));
  });

  test("status=unread pages the unread ones only; bob sees only his", async () => {
    const some = (await get("?limit=3")).json.notifications;
    for (const n of some) expect((await t.call("POST", `/api/notifications/${n.id}/read`, { cookie: alice.cookie })).status).toBe(200);
    const unread = await get("?status=unread&limit=200");
    expect(unread.headers.get("x-total-count")).toBe("117");
    expect(unread.json.notifications.every((n: { read: boolean }) => !n.read)).toBe(true);
    const b = await get("", bob.cookie);
    expect(b.json.notifications.map((n: { message: string }) => n.message)).toEqual(["bob's"]);
    expect(b.headers.get("x-total-count")).toBe("1");
  });

  for (const q of ["?limit=0", "?limit=201", "?limit=2.5", "?status=read", "?cursor=%22%22", `?cursor=${Buffer.from('["newest",1,2]').toString("base64url")}`]) {
    test(`refuses ${q} with a 400`, async () => {
      const r = await get(q);
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe("VALIDATION");
    });
  }
});
