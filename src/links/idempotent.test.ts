// Idempotent create with `externalId` (issue 23 item 3): a retried create, one create or bulk
// item, answers with the link the first attempt made. Runs on PostgreSQL too with
// TEST_BACKEND=postgres, where the concurrent retries race on separate connections.
import { describe, expect, test } from "bun:test";
import { HOSTILE, setup } from "../test/helpers";

const t = await setup({ SHORT_DOMAIN: "go.example" });
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");

const count = async (userId: number, externalId: string) =>
  Number((await t.database.get<{ n: number }>("SELECT COUNT(*) AS n FROM short_links WHERE user_id = ? AND external_id = ?", userId, externalId))!.n);
const body = (externalId: string, extra: Record<string, unknown> = {}) => ({ originalUrl: "https://example.com/order", title: "Order", externalId, ...extra });

describe("POST /api/links with externalId", () => {
  test("the first create is 201; the same externalId again is 200 with that link, unchanged, whatever else it sends", async () => {
    const first = await t.call("POST", "/api/links", { body: body("crm-1"), cookie: alice.cookie });
    expect(first.status).toBe(201);
    expect(first.json.externalId).toBe("crm-1");
    const again = await t.call("POST", "/api/links", { body: body("crm-1", { title: "Other title", originalUrl: "https://example.org/other" }), cookie: alice.cookie });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect(await count(alice.user.id, "crm-1")).toBe(1);
    // Read back the same way.
    const read = await t.call("GET", `/api/links/${first.json.id}`, { cookie: alice.cookie });
    expect(read.json.externalId).toBe("crm-1");
  });

  test("concurrent retries make one link: every answer names it, exactly one is 201", async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => t.call("POST", "/api/links", { body: body("crm-race"), cookie: alice.cookie })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((a) => a.json.id)).size).toBe(1);
    expect(await count(alice.user.id, "crm-race")).toBe(1);
  });

  test("externalIds are per user: another user's same id makes their own link", async () => {
    const a = await t.call("POST", "/api/links", { body: body("shared-id"), cookie: alice.cookie });
    const b = await t.call("POST", "/api/links", { body: body("shared-id"), cookie: bob.cookie });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.json.id).not.toBe(b.json.id);
  });

  test("an externalId used in the other tracker is a 409 on externalId, nothing made", async () => {
    expect((await t.call("POST", "/api/pic-drift-links", { body: body("cross"), cookie: alice.cookie })).status).toBe(201);
    const r = await t.call("POST", "/api/links", { body: body("cross"), cookie: alice.cookie });
    expect(r.status).toBe(409);
    expect(r.json.error.fields).toEqual({ externalId: "This externalId names a link in the other tracker" });
    expect(await count(alice.user.id, "cross")).toBe(1);
  });

  test("without externalId (or an empty one) every create is a new link", async () => {
    const a = await t.call("POST", "/api/links", { body: { originalUrl: "https://example.com/x", title: "X" }, cookie: alice.cookie });
    const b = await t.call("POST", "/api/links", { body: { originalUrl: "https://example.com/x", title: "X", externalId: "" }, cookie: alice.cookie });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.json.id).not.toBe(b.json.id);
    expect(b.json.externalId).toBeNull();
  });

  for (const [name, externalId, message] of [
    ["over 255 characters", "x".repeat(256), "externalId must be at most 255 characters"],
    ["a NUL", HOSTILE.nul, "externalId must not contain control characters"],
    ["a line break", "a\nb", "externalId must not contain control characters"],
    ["a number", 42, "externalId must be text"],
  ] as const) {
    test(`refuses an externalId with ${name}: 400 on externalId, nothing made`, async () => {
      const before = Number((await t.database.get<{ n: number }>("SELECT COUNT(*) AS n FROM short_links"))!.n);
      const r = await t.call("POST", "/api/links", { body: { originalUrl: "https://example.com/y", title: "Y", externalId } as never, cookie: alice.cookie });
      expect(r.status).toBe(400);
      expect(r.json.error.fields).toEqual({ externalId: message });
      expect(Number((await t.database.get<{ n: number }>("SELECT COUNT(*) AS n FROM short_links"))!.n)).toBe(before);
    });
  }

  test("hostile text that is valid is kept exactly and matched exactly", async () => {
    for (const id of [HOSTILE.sql, HOSTILE.script, HOSTILE.emoji]) {
      const a = await t.call("POST", "/api/links", { body: body(id), cookie: bob.cookie });
      const b = await t.call("POST", "/api/links", { body: body(id), cookie: bob.cookie });
      expect([a.status, b.status]).toEqual([201, 200]);
      expect(b.json.id).toBe(a.json.id);
      expect(a.json.externalId).toBe(id);
    }
  });
});

describe("POST /api/links/bulk with externalId", () => {
  test("a retried bulk request makes nothing new: each item answers `existing` with its link", async () => {
    const items = [body("bulk-1"), body("bulk-2"), { originalUrl: "https://example.com/no-id", title: "No id" }];
    const first = await t.call("POST", "/api/links/bulk", { body: { links: items }, cookie: alice.cookie });
    expect(first.json).toMatchObject({ created: 3, existing: 0, refused: 0 });
    const again = await t.call("POST", "/api/links/bulk", { body: { links: items }, cookie: alice.cookie });
    expect(again.json).toMatchObject({ created: 1, existing: 2, refused: 0 });
    expect(again.json.results[0]).toMatchObject({ index: 0, status: "existing", link: { id: first.json.results[0].link.id } });
    expect(again.json.results[1]).toMatchObject({ index: 1, status: "existing", link: { id: first.json.results[1].link.id } });
    expect(await count(alice.user.id, "bulk-1")).toBe(1);
  });

  test("two items of one request naming one externalId: the first is created, the second is `existing` with it", async () => {
    const r = await t.call("POST", "/api/links/bulk", { body: { links: [body("twice"), body("twice", { title: "Second" })] }, cookie: alice.cookie });
    expect(r.json).toMatchObject({ created: 1, existing: 1 });
    expect(r.json.results[1].link.id).toBe(r.json.results[0].link.id);
    expect(await count(alice.user.id, "twice")).toBe(1);
  });

  test("concurrent bulk requests and single creates naming the same ids make each link once", async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `conc-${i}`);
    const bulk = () => t.call("POST", "/api/links/bulk", { body: { links: ids.map((id) => body(id)) }, cookie: bob.cookie });
    const single = (id: string) => t.call("POST", "/api/links", { body: body(id), cookie: bob.cookie });
    const answers = await Promise.all([bulk(), single("conc-3"), bulk(), single("conc-17"), bulk()]);
    for (const a of answers) expect(a.status).toBeLessThan(300);
    for (const id of ids) expect(await count(bob.user.id, id)).toBe(1);
    const created = answers.filter((a) => Array.isArray(a.json.results)).reduce((n, a) => n + a.json.created, 0) + answers.filter((a) => a.status === 201).length;
    expect(created).toBe(ids.length);
  });

  test("an item whose externalId names a brand link is refused with CONFLICT on externalId", async () => {
    await t.call("POST", "/api/pic-drift-links", { body: body("brand-only"), cookie: bob.cookie });
    const r = await t.call("POST", "/api/links/bulk", { body: { links: [body("brand-only")] }, cookie: bob.cookie });
    expect(r.json.results[0]).toMatchObject({ status: "refused", error: { code: "CONFLICT", fields: { externalId: "This externalId names a link in the other tracker" } } });
  });
});
