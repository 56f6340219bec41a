// The event log (issue 26): every change of the list appends its event in the change's own
// transaction, on both backends; notifications are raised from the events; retention.
import { describe, expect, test } from "bun:test";
import { setup } from "../test/helpers";
import { WRITE_WITHIN_MS } from "../analytics/recorder";
import { eventsStore } from "./store";

const t = await setup({ SHORT_DOMAIN: "go.example" });
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");

type Ev = { id: number; type: string; user_id: number | null; link_id: number | null; topic_id: number | null; data: string; created_at: string };
const eventsOf = async (type: string, userId: number) =>
  (await t.database.all<Ev>("SELECT * FROM events WHERE type = ? AND user_id = ? ORDER BY id", type, userId)).map((e) => ({ ...e, data: JSON.parse(e.data) }));
const settle = () => Bun.sleep(WRITE_WITHIN_MS + 300);

async function makeLink(shortCode: string, cookie = alice.cookie) {
  const r = await t.call("POST", "/api/links", { body: { originalUrl: `https://example.com/${shortCode}`, title: `T ${shortCode}`, shortCode }, cookie });
  expect(r.status, r.text).toBe(201);
  return r.json as { id: number; shortCode: string };
}

describe("link changes", () => {
  test("create, edit and delete each append one event with the link's fields, for its owner", async () => {
    const link = await makeLink("ev-one");
    const edited = await t.call("PUT", `/api/links/${link.id}`, { body: { originalUrl: "https://example.com/changed", title: "Changed", description: "", expiresAt: null }, cookie: alice.cookie });
    expect(edited.status).toBe(200);
    expect((await t.call("DELETE", `/api/links/${link.id}`, { cookie: alice.cookie })).status).toBe(200);
    const rows = (await t.database.all<Ev>("SELECT * FROM events WHERE link_id = ? ORDER BY id", link.id)).map((e) => ({ type: e.type, user: e.user_id, data: JSON.parse(e.data) }));
    expect(rows).toEqual([
      { type: "link.created", user: alice.user.id, data: { id: link.id, shortCode: "ev-one", tracker: "main", originalUrl: "https://example.com/ev-one", title: "T ev-one" } },
      { type: "link.updated", user: alice.user.id, data: { id: link.id, shortCode: "ev-one", tracker: "main", originalUrl: "https://example.com/changed", title: "Changed" } },
      { type: "link.deleted", user: alice.user.id, data: { id: link.id, shortCode: "ev-one", tracker: "main" } },
    ]);
  });

  test("a refused change appends nothing: taken code, another user's link, validation", async () => {
    const link = await makeLink("ev-mine");
    const before = await t.count("events");
    expect((await t.call("POST", "/api/links", { body: { originalUrl: "https://example.com/x", title: "x", shortCode: "ev-mine" }, cookie: bob.cookie })).status).toBe(409);
    expect((await t.call("PUT", `/api/links/${link.id}`, { body: { originalUrl: "https://example.com/bob", title: "bob", description: "", expiresAt: null }, cookie: bob.cookie })).status).toBe(404);
    expect((await t.call("DELETE", `/api/links/${link.id}`, { cookie: bob.cookie })).status).toBe(404);
    expect((await t.call("POST", "/api/links", { body: { originalUrl: "not a url", title: "x" }, cookie: bob.cookie })).status).toBe(400);
    expect(await t.count("events")).toBe(before);
  });

  test("bulk create: one link.created per link made, none for a refused item", async () => {
    const before = (await eventsOf("link.created", bob.user.id)).length;
    const r = await t.call("POST", "/api/links/bulk", {
      body: { links: [{ originalUrl: "https://example.com/b1", title: "b1", shortCode: "ev-bulk-1" }, { originalUrl: "https://example.com/b2", title: "b2", shortCode: "ev-mine" }, { originalUrl: "https://example.com/b3", title: "b3" }] },
      cookie: bob.cookie,
    });
    expect(r.json.created).toBe(2);
    const made = (await eventsOf("link.created", bob.user.id)).slice(before);
    expect(made.map((e) => e.data.title)).toEqual(["b1", "b3"]);
  });
});

describe("clicks recorded", () => {
  test("one summary per link per batch, never per redirect, with the batch's clicks and the total; the first click's notice comes from it", async () => {
    const a = await makeLink("ev-click-a");
    const b = await makeLink("ev-click-b");
    await Promise.all([...Array(6)].map(() => t.call("GET", "/ev-click-a")));
    await Promise.all([...Array(2)].map(() => t.call("GET", "/ev-click-b")));
    const of = async (id: number) => (await eventsOf("clicks.recorded", alice.user.id)).filter((e) => e.link_id === id).map((e) => e.data);
    // Until the click writer has written them all (a busy machine may take longer than its window).
    const sum = (evs: { clicks: number }[]) => evs.reduce((n, d) => n + d.clicks, 0);
    for (let waited = 0; sum(await of(a.id)) < 6 || sum(await of(b.id)) < 2; waited += 50) {
      if (waited > 10_000) throw new Error("the clicks were not written within 10 s");
      await Bun.sleep(50);
    }
    await settle();
    const evA = await of(a.id);
    // Six redirects within one flush window: fewer summaries than redirects, adding up exactly.
    expect(evA.length).toBeGreaterThan(0);
    expect(evA.length).toBeLessThan(6);
    expect(evA.reduce((n, d) => n + d.clicks, 0)).toBe(6);
    expect(evA.at(-1)).toMatchObject({ linkId: a.id, shortCode: "ev-click-a", tracker: "main", title: "T ev-click-a", total: 6 });
    expect((await of(b.id)).reduce((n, d) => n + d.clicks, 0)).toBe(2);
    const notices = await t.database.all<{ message: string }>("SELECT message FROM notifications WHERE user_id = ? AND message LIKE ?", alice.user.id, "%(/ev-click-a)%");
    expect(notices.map((n) => n.message)).toEqual(['Your link "T ev-click-a" (/ev-click-a) got its first click']);
  });

  test("a deleted link's late clicks append no event", async () => {
    const c = await makeLink("ev-gone");
    await t.call("GET", "/ev-gone");
    await t.call("DELETE", `/api/links/${c.id}`, { cookie: alice.cookie });
    await settle();
    // The delete flushed the buffered click first: its summary, then the deletion, nothing after.
    const rows = await t.database.all<Ev>("SELECT type FROM events WHERE link_id = ? ORDER BY id", c.id);
    expect(rows.map((r) => r.type)).toEqual(["link.created", "clicks.recorded", "link.deleted"]);
  });
});

describe("titles, invites, imports", () => {
  test("title.added for every new version, for the topic's owner; the owner is notified only of others' new series", async () => {
    const topic = (await t.call("POST", "/api/topics", { body: { name: "Ev Board", accessType: "personal" }, cookie: alice.cookie })).json;
    await t.database.run("INSERT INTO shares (owner_id, member_id, created_at) VALUES (?, ?, ?)", alice.user.id, bob.user.id, new Date().toISOString());
    const path = `/api/alice/${topic.linkSlug}/titles`;
    const notes = () => t.database.all("SELECT message FROM notifications WHERE user_id = ? AND kind = 'title_added'", alice.user.id);
    expect((await t.call("POST", path, { body: { name: "Mine", version: 1 }, cookie: alice.cookie })).status).toBe(201);
    expect((await t.call("POST", path, { body: { name: "From Bob", version: 1 }, cookie: bob.cookie })).status).toBe(201);
    expect((await t.call("POST", path, { body: { name: "From Bob", version: 2 }, cookie: bob.cookie })).status).toBe(201);
    const evs = await eventsOf("title.added", alice.user.id);
    expect(evs.map((e) => [e.topic_id, e.data.titleName, e.data.version, e.data.actor])).toEqual([
      [topic.id, "Mine", 1, "alice"],
      [topic.id, "From Bob", 1, "bob"],
      [topic.id, "From Bob", 2, "bob"],
    ]);
    expect(await notes()).toEqual([{ message: `bob added "From Bob" to your topic Ev Board.` }]);
    // A refused title (name taken) appends nothing.
    const before = await t.count("events");
    expect((await t.call("POST", path, { body: { name: "Mine", version: 1 }, cookie: bob.cookie })).status).toBe(409);
    expect(await t.count("events")).toBe(before);
  });

  test("invite.accepted for the inviter, with its notice; a refused accept appends nothing", async () => {
    const carol = await t.signUp("carol");
    const invite = (await t.call("POST", "/api/invites", { cookie: carol.cookie })).json;
    const before = await t.count("events");
    expect((await t.call("POST", `/api/invites/${invite.code}/accept`, { cookie: carol.cookie })).status).toBe(400);
    expect(await t.count("events")).toBe(before);
    expect((await t.call("POST", `/api/invites/${invite.code}/accept`, { cookie: bob.cookie })).status).toBe(200);
    const evs = await eventsOf("invite.accepted", carol.user.id);
    expect(evs.map((e) => e.data)).toEqual([{ memberId: bob.user.id, member: "bob" }]);
    const n = await t.database.all("SELECT kind, message FROM notifications WHERE user_id = ?", carol.user.id);
    expect(n).toEqual([{ kind: "invite_accepted", message: "bob accepted your invite and can now see your shared topics." }]);
  });

  test("import.finished once per import, with its summary", async () => {
    const csv = "code,url,title\nev-imp-1,https://example.com/i1,One\n,not a url,Two\n";
    const res = await t.app.handle(
      new Request("http://localhost:3000/api/links/import", { method: "POST", headers: { host: "localhost:3000", "content-type": "text/csv", cookie: bob.cookie }, body: csv }),
    );
    expect(res.status).toBe(200);
    const evs = await eventsOf("import.finished", bob.user.id);
    expect(evs.map((e) => e.data)).toEqual([{ format: expect.any(String), rows: 2, imported: 1, skipped: 1 }]);
  });
});

describe("retention", () => {
  test("events older than the cut-off go in bounded batches; newer ones stay", async () => {
    const store = eventsStore(t.database);
    const old = new Date(Date.now() - 40 * 86_400_000).toISOString();
    for (let i = 0; i < 7; i++) await t.database.run("INSERT INTO events (type, user_id, data, created_at) VALUES ('link.deleted', ?, '{}', ?)", alice.user.id, old);
    const total = await t.count("events");
    const cutoff = new Date(Date.now() - 30 * 86_400_000).toISOString();
    expect(await store.prune(cutoff, 3)).toBe(7);
    expect(await t.count("events")).toBe(total - 7);
    expect(await t.database.get("SELECT COUNT(*) AS n FROM events WHERE created_at < ?", cutoff)).toEqual({ n: 0 });
  });
});

describe("one transaction", () => {
  test("when a consumer's write fails, the change itself is rolled back", async () => {
    const other = await setup();
    const u = await other.signUp("dora");
    // The outbox gone: the event's transaction cannot commit, so the link must not exist either.
    await other.database.run("DROP TABLE webhook_deliveries");
    const r = await other.call("POST", "/api/links", { body: { originalUrl: "https://example.com/x", title: "x", shortCode: "ev-atomic" }, cookie: u.cookie });
    expect(r.status).toBe(500);
    expect(await other.database.get("SELECT COUNT(*) AS n FROM short_links WHERE short_code = 'ev-atomic'")).toEqual({ n: 0 });
    expect(await other.count("events")).toBe(0);
  });
});
