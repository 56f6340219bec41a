import { describe, expect, test } from "bun:test";
import { HOSTILE, setup } from "../test/helpers";
import { hashCode } from "./store";

const t = await setup();
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");
const carol = await t.signUp("carol");

const newInvite = async (cookie: string) => {
  const r = await t.call("POST", "/api/invites", { cookie });
  expect(r.status).toBe(201);
  return r.json as { code: string; url: string; expiresAt: string };
};
const accept = (cookie: string, code: string) => t.call("POST", `/api/invites/${encodeURIComponent(code)}/accept`, { cookie });
const shares = () => t.database.all<{ owner_id: number; member_id: number }>("SELECT owner_id, member_id FROM shares ORDER BY owner_id, member_id");
const topic = async (cookie: string, name: string, accessType: string) =>
  (await t.call("POST", "/api/topics", { cookie, body: { name, accessType } })).json;

const aPersonal = await topic(alice.cookie, "Alice Personal", "personal");
const aPublic = await topic(alice.cookie, "Alice Public", "public");
const aPrivate = await topic(alice.cookie, "Alice Private", "private");

describe("POST /api/invites", () => {
  test("returns a 128-bit code once; only its hash is stored; 7 days", async () => {
    const inv = await newInvite(alice.cookie);
    expect(inv.code).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(inv.url).toBe(`http://localhost:3000/invite/${inv.code}`);
    const row = (await t.database.get<{ expires_at: string; created_at: string }>("SELECT * FROM invites WHERE code_hash = ?", hashCode(inv.code)))!;
    expect(row).not.toBeNull();
    expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBe(7 * 86_400_000);
    expect(await t.database.get("SELECT COUNT(*) AS n FROM invites WHERE code_hash = ?", inv.code)).toEqual({ n: 0 });
    const other = await newInvite(alice.cookie);
    expect(other.code).not.toBe(inv.code);
  });
  test("at most 50 open invites per user (429, nothing added); used ones do not count", async () => {
    const u = await t.signUp("spammer");
    for (let i = 0; i < 50; i++) await newInvite(u.cookie);
    const before = await t.count("invites");
    const r = await t.call("POST", "/api/invites", { cookie: u.cookie });
    expect(r.status).toBe(429);
    expect(r.json.error.message).toBe("You have 50 unused invite links. Wait until some are used or expire before creating more.");
    expect(await t.count("invites")).toBe(before);
    await t.database.run(
      "UPDATE invites SET expires_at = ? WHERE code_hash = (SELECT code_hash FROM invites WHERE user_id = ? LIMIT 1)",
      new Date(Date.now() - 1).toISOString(),
      u.user.id,
    );
    expect((await t.call("POST", "/api/invites", { cookie: u.cookie })).status).toBe(201);
  });

  test("signed out is 401", async () => {
    const before = await t.count("invites");
    expect((await t.call("POST", "/api/invites")).status).toBe(401);
    expect(await t.count("invites")).toBe(before);
  });
});

describe("GET /api/invites/:code (public)", () => {
  test("names the inviter and the status", async () => {
    const inv = await newInvite(alice.cookie);
    const r = await t.call("GET", `/api/invites/${inv.code}`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ inviter: "alice", status: "valid" });
    expect((await t.call("GET", `/api/invites/${"A".repeat(22)}`)).status).toBe(404);
  });
});

describe("POST /api/invites/:code/accept", () => {
  test("happy path: shares, notifies the inviter, and the code is spent", async () => {
    const inv = await newInvite(alice.cookie);
    const r = await accept(bob.cookie, inv.code);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ok: true, owner: { id: alice.user.id, username: "alice" } });
    expect(await shares()).toContainEqual({ owner_id: alice.user.id, member_id: bob.user.id });
    const notes = await t.call("GET", "/api/notifications", { cookie: alice.cookie });
    expect(notes.json.notifications[0]).toMatchObject({ kind: "invite_accepted", message: "bob accepted your invite and can now see your shared topics.", read: false });
    expect(notes.json.unreadCount).toBe(1);
    expect((await t.call("GET", `/api/invites/${inv.code}`)).json.status).toBe("used");
  });

  const invite = async () => (await newInvite(alice.cookie)).code;
  const scenarios: { name: string; code: () => Promise<string>; who: () => string; status: number; message: string }[] = [
    { name: "own invite", code: invite, who: () => alice.cookie, status: 400, message: "You can't accept your own invite. Send the link to someone else." },
    {
      name: "used invite",
      code: async () => {
        const c = await invite();
        await t.database.run("UPDATE invites SET used_by = ?, used_at = ? WHERE code_hash = ?", carol.user.id, new Date().toISOString(), hashCode(c));
        return c;
      },
      who: () => carol.cookie,
      status: 410,
      message: "This invite has already been used. Ask for a new invite link.",
    },
    {
      name: "expired invite",
      code: async () => {
        const c = await invite();
        await t.database.run("UPDATE invites SET expires_at = ? WHERE code_hash = ?", new Date(Date.now() - 1000).toISOString(), hashCode(c));
        return c;
      },
      who: () => carol.cookie,
      status: 410,
      message: "This invite has expired. Ask for a new invite link.",
    },
    { name: "unknown code", code: async () => "Z".repeat(22), who: () => carol.cookie, status: 404, message: "This invite link is not valid. Check the code and try again." },
    { name: "malformed code", code: async () => "not-a-code", who: () => carol.cookie, status: 404, message: "This invite link is not valid. Check the code and try again." },
    { name: "SQL-ish code", code: async () => HOSTILE.sql, who: () => carol.cookie, status: 404, message: "This invite link is not valid. Check the code and try again." },
    { name: "script code", code: async () => HOSTILE.script, who: () => carol.cookie, status: 404, message: "This invite link is not valid. Check the code and try again." },
    { name: "10 kB code", code: async () => HOSTILE.huge, who: () => carol.cookie, status: 404, message: "This invite link is not valid. Check the code and try again." },
    { name: "already sharing (bob accepted before)", code: invite, who: () => bob.cookie, status: 409, message: "You already see alice's shared topics." },
  ];
  for (const s of scenarios) {
    test(`${s.name} → ${s.status}, no new share`, async () => {
      const code = await s.code();
      const before = await shares();
      const r = await accept(s.who(), code);
      expect(r.status).toBe(s.status);
      expect(r.json.error.message).toBe(s.message);
      expect(await shares()).toEqual(before);
    });
  }

  test("accepting the same code twice: the second is 410", async () => {
    const dave = await t.signUp("dave");
    const erin = await t.signUp("erin");
    const inv = await newInvite(alice.cookie);
    expect((await accept(dave.cookie, inv.code)).status).toBe(200);
    const again = await accept(dave.cookie, inv.code);
    expect(again.status).toBe(410);
    const other = await accept(erin.cookie, inv.code);
    expect(other.status).toBe(410);
    expect(await shares()).not.toContainEqual({ owner_id: alice.user.id, member_id: erin.user.id });
  });

  test("one code accepted by two people at once: one share, the other 410", async () => {
    const gina = await t.signUp("gina");
    const hank = await t.signUp("hank");
    const inv = await newInvite(alice.cookie);
    const rs = await Promise.all([accept(gina.cookie, inv.code), accept(hank.cookie, inv.code)]);
    expect(rs.map((r) => r.status).sort()).toEqual([200, 410]);
    const joined = (await shares()).filter((x) => x.owner_id === alice.user.id && [gina.user.id, hank.user.id].includes(x.member_id));
    expect(joined).toHaveLength(1);
  });

  test("an invite left unused by an already-sharing user can still be used by someone else", async () => {
    const frank = await t.signUp("frank");
    const inv = await newInvite(alice.cookie);
    expect((await accept(bob.cookie, inv.code)).status).toBe(409);
    expect((await accept(frank.cookie, inv.code)).status).toBe(200);
  });

  test("signed out is 401", async () => {
    const inv = await newInvite(alice.cookie);
    expect((await t.call("POST", `/api/invites/${inv.code}/accept`)).status).toBe(401);
    expect((await t.call("GET", `/api/invites/${inv.code}`)).json.status).toBe("valid");
  });
});

describe("shared access per accessType", () => {
  test("a member sees personal and public topics, never private", async () => {
    const r = await t.call("GET", "/api/shared-topics", { cookie: bob.cookie });
    expect(r.status).toBe(200);
    const ids = r.json.map((x: { id: number }) => x.id);
    expect(ids).toContain(aPersonal.id);
    expect(ids).toContain(aPublic.id);
    expect(ids).not.toContain(aPrivate.id);
    expect(r.json[0].username).toBe("alice");
    const users = await t.call("GET", "/api/sharing-users", { cookie: bob.cookie });
    expect(users.json).toEqual([{ id: alice.user.id, username: "alice", since: expect.any(String), topicCount: 2 }]);
  });

  test("a non-member sees nothing shared, and only public topics on /share", async () => {
    expect((await t.call("GET", "/api/shared-topics", { cookie: carol.cookie })).json).toEqual([]);
    expect((await t.call("GET", "/api/sharing-users", { cookie: carol.cookie })).json).toEqual([]);
    const page = await t.call("GET", "/api/share/alice", { cookie: carol.cookie });
    expect(page.json).toMatchObject({ username: "alice", isMember: false });
    expect(page.json.topics.map((x: { id: number }) => x.id)).toEqual([aPublic.id]);
  });

  test("/share shows members personal + public, the owner everything", async () => {
    const member = await t.call("GET", "/api/share/ALICE", { cookie: bob.cookie });
    expect(member.json.isMember).toBe(true);
    expect(member.json.topics.map((x: { id: number }) => x.id)).toEqual([aPersonal.id, aPublic.id]);
    const own = await t.call("GET", "/api/share/alice", { cookie: alice.cookie });
    expect(own.json.topics).toHaveLength(3);
    expect((await t.call("GET", "/api/share/nobody", { cookie: bob.cookie })).status).toBe(404);
    expect((await t.call("GET", "/api/share/alice")).status).toBe(401);
  });

  test.each(Object.entries(HOSTILE))("/api/share with a hostile username (%s) is a clean 404", async (_k, name) => {
    const r = await t.call("GET", `/api/share/${encodeURIComponent(name)}`, { cookie: bob.cookie });
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe("NOT_FOUND");
  });

  test("topic links follow the same rules", async () => {
    const get = (cookie: string, slug: string) => t.call("GET", `/api/topic/alice/${slug}`, { cookie });
    expect((await get(bob.cookie, "alice-personal")).json.role).toBe("member");
    expect((await get(bob.cookie, "alice-public")).json.role).toBe("member");
    expect((await get(bob.cookie, "alice-private")).status).toBe(404);
    expect((await get(carol.cookie, "alice-public")).json.role).toBe("viewer");
    expect((await get(carol.cookie, "alice-personal")).status).toBe(404);
    expect((await get(carol.cookie, "alice-private")).status).toBe(404);
  });

  test("members cannot rename, delete or reorder the owner's topics", async () => {
    const before = await t.database.get("SELECT * FROM topics WHERE id = ?", aPersonal.id);
    expect((await t.call("PUT", `/api/topics/${aPersonal.id}`, { cookie: bob.cookie, body: { name: "mine now" } })).status).toBe(404);
    expect((await t.call("DELETE", `/api/topics/${aPersonal.id}`, { cookie: bob.cookie })).status).toBe(404);
    expect(await t.database.get("SELECT * FROM topics WHERE id = ?", aPersonal.id)).toEqual(before);
  });
});

// People with access (issue 25): dave and erin accept invites from frank; gina shares with dave.
const frank = await t.signUp("pwa-frank");
const dave = await t.signUp("pwa-dave");
const erin = await t.signUp("pwa-erin");
const gina = await t.signUp("pwa-gina");
const join = async (owner: { cookie: string }, member: { cookie: string }) => expect((await accept(member.cookie, (await newInvite(owner.cookie)).code)).status).toBe(200);
await join(frank, dave);
await join(frank, erin);
await join(gina, dave);
const fPersonal = await topic(frank.cookie, "Frank Personal", "personal");

describe("people with access: the owner removes, the member leaves (issue 25)", () => {
  const sees = async (who: { cookie: string }) => (await t.call("GET", `/api/topic/pwa-frank/${fPersonal.linkSlug}`, { cookie: who.cookie })).status;

  test("GET /api/sharing-members lists who accepted, by username, with since; only the caller's own", async () => {
    const r = await t.call("GET", "/api/sharing-members", { cookie: frank.cookie });
    expect(r.status).toBe(200);
    expect(r.json.map((m: { username: string }) => m.username)).toEqual(["pwa-dave", "pwa-erin"]);
    expect(r.json[0]).toEqual({ id: dave.user.id, username: "pwa-dave", since: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });
    expect((await t.call("GET", "/api/sharing-members", { cookie: gina.cookie })).json.map((m: { username: string }) => m.username)).toEqual(["pwa-dave"]);
    expect((await t.call("GET", "/api/sharing-members", { cookie: dave.cookie })).json).toEqual([]);
    expect((await t.call("GET", "/api/sharing-members")).status).toBe(401);
  });

  test("another user's share cannot be ended: 404, nothing changed", async () => {
    const before = await shares();
    // carol is no owner of dave's access, nor a member of frank's.
    for (const [path, who] of [
      [`/api/sharing-members/${dave.user.id}`, carol],
      [`/api/sharing-users/${frank.user.id}`, carol],
      // gina cannot remove erin from frank's people (erin is not hers).
      [`/api/sharing-members/${erin.user.id}`, gina],
      // frank cannot make dave leave gina's.
      [`/api/sharing-users/${gina.user.id}`, frank],
    ] as const) {
      const r = await t.call("DELETE", path, { cookie: who.cookie });
      expect(r.status, path).toBe(404);
      expect(r.json.error.code).toBe("NOT_FOUND");
    }
    expect(await shares()).toEqual(before);
  });

  test.each([["0"], ["-1"], ["abc"], ["1.5"], ["99999999999"], ["2147483648"], ["%00"], ["1%20OR%201=1"]])("a hostile id (%s) is a clean 404, nothing changed", async (id) => {
    const before = await shares();
    for (const path of [`/api/sharing-members/${id}`, `/api/sharing-users/${id}`]) {
      const r = await t.call("DELETE", path, { cookie: frank.cookie });
      expect(r.status, path).toBe(404);
    }
    expect(await shares()).toEqual(before);
  });

  test("signed out is 401, nothing changed", async () => {
    const before = await shares();
    expect((await t.call("DELETE", `/api/sharing-members/${dave.user.id}`)).status).toBe(401);
    expect((await t.call("DELETE", `/api/sharing-users/${frank.user.id}`)).status).toBe(401);
    expect(await shares()).toEqual(before);
  });

  test("the owner removes erin: she no longer sees the shared topics; dave still does; a second time is 404", async () => {
    expect(await sees(erin)).toBe(200);
    const r = await t.call("DELETE", `/api/sharing-members/${erin.user.id}`, { cookie: frank.cookie });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect(await sees(erin)).toBe(404);
    expect(await sees(dave)).toBe(200);
    expect((await t.call("GET", "/api/sharing-users", { cookie: erin.cookie })).json).toEqual([]);
    expect((await t.call("DELETE", `/api/sharing-members/${erin.user.id}`, { cookie: frank.cookie })).status).toBe(404);
    // A new invite brings her back.
    await join(frank, erin);
    expect(await sees(erin)).toBe(200);
  });

  test("dave leaves frank's shared topics; gina's share with him stays; frank's list no longer has him", async () => {
    const r = await t.call("DELETE", `/api/sharing-users/${frank.user.id}`, { cookie: dave.cookie });
    expect(r.status).toBe(204);
    expect(await sees(dave)).toBe(404);
    expect((await t.call("GET", "/api/sharing-users", { cookie: dave.cookie })).json.map((u: { username: string }) => u.username)).toEqual(["pwa-gina"]);
    expect((await t.call("GET", "/api/sharing-members", { cookie: frank.cookie })).json.map((m: { username: string }) => m.username)).toEqual(["pwa-erin"]);
  });
});
