// Store-level checks for the access rules other features build on (findVisible).
import { describe, expect, test } from "bun:test";
import { setup } from "../test/helpers";
import { topicsStore, randomPhone } from "./store";
import { notificationsStore } from "../notifications/store";

const t = await setup();
const store = topicsStore(t.database);
const phone = () => randomPhone("+1555");
const owner = (await t.signUp("owner1")).user;
const member = (await t.signUp("member1")).user;
const stranger = (await t.signUp("stranger1")).user;
await t.database.run(`INSERT INTO shares (owner_id, member_id, created_at) VALUES (?, ?, ?)`, owner.id, member.id, new Date().toISOString());

const personal = await store.create(owner.id, { name: "Launch Plans", emoji: null }, phone);
const pub = await store.create(owner.id, { name: "Open", emoji: null, accessType: "public" }, phone);
const priv = await store.create(owner.id, { name: "Secret", emoji: null, accessType: "private" }, phone);

describe("findVisible", () => {
  const cases: [string, number, string, string, string | null][] = [
    ["owner sees personal", owner.id, "owner1", "launch-plans", "owner"],
    ["owner sees private", owner.id, "owner1", "secret", "owner"],
    ["member sees personal", member.id, "owner1", "launch-plans", "member"],
    ["member sees public", member.id, "owner1", "open", "member"],
    ["member cannot see private", member.id, "owner1", "secret", null],
    ["stranger sees public read-only", stranger.id, "owner1", "open", "viewer"],
    ["stranger cannot see personal", stranger.id, "owner1", "launch-plans", null],
    ["stranger cannot see private", stranger.id, "owner1", "secret", null],
    ["unknown slug", owner.id, "owner1", "nope", null],
    ["unknown user", owner.id, "nobody", "launch-plans", null],
    ["case-insensitive", owner.id, "OWNER1", "Launch-Plans", "owner"],
    // Never a database error: PostgreSQL cannot bind U+0000, and no name or slug holds one.
    ["NUL in the slug", owner.id, "owner1", "launch-plans\u0000", null],
    ["NUL in the username", owner.id, "owner1\u0000", "launch-plans", null],
  ];
  for (const [name, viewer, u, slug, role] of cases) {
    test(name, async () => {
      const r = await store.findVisible(viewer, u, slug);
      expect(r?.role ?? null).toBe(role as any);
      if (role) expect(r!.topic.username).toBe("owner1");
    });
  }

  test("old slugs keep resolving after a rename; slugs are unique per user", async () => {
    const renamed = (await store.update(owner.id, personal.id, { name: "Go Live" }))!;
    expect(renamed.linkSlug).toBe("go-live");
    expect((await store.findVisible(owner.id, "owner1", "launch-plans"))?.topic.id).toBe(personal.id);
    expect((await store.findVisible(owner.id, "owner1", "go-live"))?.topic.id).toBe(personal.id);
    // A new topic may not take a slug an existing topic still answers to.
    const again = await store.create(owner.id, { name: "Launch plans", emoji: null }, phone);
    expect(again.linkSlug).toBe("launch-plans-2");
    expect(pub.phoneNumber).toMatch(/^\+1555\d{7}$/);
    expect(priv.phoneNumber).not.toBe(pub.phoneNumber);
  });
});

describe("notificationsStore", () => {
  const n = notificationsStore(t.database);
  test("a duplicate dedupeKey for the same user is ignored; other users are separate", async () => {
    expect(await n.create({ userId: owner.id, kind: "link", message: "first", dedupeKey: "k1" })).not.toBeNull();
    expect(await n.create({ userId: owner.id, kind: "link", message: "again", dedupeKey: "k1" })).toBeNull();
    expect(await n.create({ userId: member.id, kind: "link", message: "other", dedupeKey: "k1" })).not.toBeNull();
    expect(await n.create({ userId: owner.id, kind: "x", message: "no key" })).not.toBeNull();
    expect(await n.create({ userId: owner.id, kind: "x", message: "no key" })).not.toBeNull();
    expect((await n.page(owner.id, { unread: false, limit: 100, after: null })).rows.map((x) => x.message).sort()).toEqual(["first", "no key", "no key"]);
  });
});
