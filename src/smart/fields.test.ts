// Smart settings on the link bodies (issue 24): create (both trackers), PUT and PATCH, bulk
// create, import, and the exports that carry them back (a password as its hash). Both backends:
// TEST_BACKEND=postgres runs this file on PostgreSQL.
import { describe, expect, test } from "bun:test";
import { ORIGIN, setup } from "../test/helpers";
import { GATE_TEXT } from "./page";

const t = await setup();
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");

type Json = Record<string, unknown>;
let n = 0;
const nextCode = () => `fld${++n}x`;
const SETTINGS = {
  password: "open sesame",
  maxClicks: 10,
  fallbackUrl: "https://example.com/sold-out",
  rules: [{ name: "iPhone <b>🍎</b>", when: { os: ["ios"], language: ["en"] }, url: "https://apps.apple.com/app/1" }],
  split: { variants: [{ url: "https://example.com/a", weight: 1 }, { url: "https://example.com/b", weight: 3 }], sticky: true },
};
const create = (body: Json, who = alice, tracker = "links") => {
  const code = nextCode();
  return t.call("POST", `/api/${tracker}`, { body: { originalUrl: `https://example.com/${code}`, title: code, shortCode: code, ...body } as never, cookie: who.cookie });
};
const smartOf = async (id: number, who = alice, tracker = "links") => (await t.call("GET", `/api/${tracker}/${id}/smart`, { cookie: who.cookie })).json as Json;
const column = async (id: number) => (await t.database.get<{ smart: string | null; updated_at: string }>("SELECT smart, updated_at FROM short_links WHERE id = ?", id))!;
const linkCount = async () => Number((await t.database.get<{ n: number }>("SELECT COUNT(*) AS n FROM short_links"))!.n);
const form = (password: string) => ({ raw: new URLSearchParams({ password }).toString(), headers: { "content-type": "application/x-www-form-urlencoded" } });
/** The password page asks, a wrong password is refused, the right one unlocks (303 and a cookie). */
async function passwordWorks(app: typeof t, code: string, password: string) {
  const page = await app.call("GET", `/${code}`);
  expect(page.status).toBe(200);
  expect(page.text).toContain(GATE_TEXT.heading);
  expect((await app.call("POST", `/${code}`, form(`${password}-wrong`))).status).toBe(403);
  const right = await app.call("POST", `/${code}`, form(password));
  expect(right.status).toBe(303);
  expect(right.headers.get("set-cookie")).toContain("tl_unlock_");
}

describe("create with smart settings", () => {
  for (const tracker of ["links", "pic-drift-links"]) {
    test(`${tracker}: the settings are set at creation, the password hashed, the badges shown`, async () => {
      const r = await create({ smart: SETTINGS }, alice, tracker);
      expect(r.status).toBe(201);
      expect(r.json.smart).toEqual({ protected: true, limited: true, spent: false, ruled: true, split: true });
      const s = await smartOf(r.json.id, alice, tracker);
      expect(s).toMatchObject({ hasPassword: true, maxClicks: 10, fallbackUrl: "https://example.com/sold-out", split: { sticky: true } });
      expect((s.rules as Json[])[0]).toEqual({ id: 1, name: "iPhone <b>🍎</b>", when: { os: ["ios"], language: ["en"] }, url: "https://apps.apple.com/app/1" });
      const col = (await column(r.json.id)).smart!;
      expect(col).not.toContain("open sesame");
      expect(JSON.parse(col).passwordHash).toStartWith("$argon2id$v=19$m=19456,t=2,p=1$");
      await passwordWorks(t, r.json.shortCode, "open sesame");
    });
  }

  test("no smart, or smart null: a plain link (no badges, no column)", async () => {
    for (const body of [{}, { smart: null }]) {
      const r = await create(body);
      expect(r.status).toBe(201);
      expect(r.json.smart).toBeNull();
      expect((await column(r.json.id)).smart).toBeNull();
    }
  });

  const refused: [string, unknown, string, string?][] = [
    ["an unknown field, by name", { maxClicks: 3, passwrd: "x" }, "Unknown field: passwrd"],
    ["not an object", "password=secret", "Smart settings must be an object"],
    ["a list", [1, 2], "Smart settings must be an object"],
    // valibot takes a list as an object of keys "0", "1"…: an empty one passed as no settings.
    ["an empty list", [], "Smart settings must be an object"],
    // Names show in the analytics, the simulator and exports: no escape sequences or NULs (the shared schemas' rule).
    ["a rule's name with a NUL", { rules: [{ name: "a\u0000b", when: { os: ["ios"] }, url: "https://example.com/r" }] }, "A rule's name must not contain control characters", "smart.rules.0.name"],
    ["a destination's name with an escape", { split: { variants: [{ name: "\u001b[31mred", url: "https://example.com/a", weight: 1 }, { url: "https://example.com/b", weight: 1 }] } }, "A destination's name must not contain control characters", "smart.split.variants.0.name"],
    ["a city with a newline", { rules: [{ when: { city: ["Berlin\nX"] }, url: "https://example.com/r" }] }, "A city must not contain control characters"],
    ["a fallback without a limit", { fallbackUrl: "https://example.com/x" }, "A fallback URL needs a click limit"],
    ["a short password", { password: "abc" }, "Password must be at least 4 characters"],
    ["a huge password", { password: "p".repeat(100_000) }, "Password must be at most 128 characters"],
    ["a password of the wrong type", { password: 12345 }, "Password must be text"],
    ["a limit of zero", { maxClicks: 0 }, "Click limit must be a whole number from 1 to 1,000,000,000"],
    ["a limit as text", { maxClicks: "10; DROP TABLE short_links" }, "Click limit must be a whole number from 1 to 1,000,000,000"],
    ["a rule with no condition", { rules: [{ when: {}, url: "https://example.com/r" }] }, "A rule needs at least one condition"],
    ["a rule to javascript:", { rules: [{ when: { os: ["ios"] }, url: "javascript:alert(1)" }] }, "Only http:// and https:// links can be shortened"],
    ["a rule to our own host", { rules: [{ when: { os: ["ios"] }, url: "http://localhost:3000/loop" }] }, "Links to our own short domains cannot be shortened (that would make a redirect loop)", "smart.rules.0.url"],
    ["a country in SQL", { rules: [{ when: { country: ["' OR 1=1 --"] }, url: "https://example.com/r" }] }, "Countries are two-letter codes such as US or DE"],
    ["a split of one", { split: { variants: [{ url: "https://example.com/a", weight: 1 }] } }, "A split needs at least two destinations"],
    ["a passwordHash outside an import", { passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$abcdefghijk$abcdefghijklmnopqrstuv" }, "Unknown field: passwordHash"],
  ];
  for (const [name, smart, message, field] of refused) {
    test(`refused: ${name} (400, nothing made)`, async () => {
      const before = await linkCount();
      const r = await create({ smart });
      expect(r.status).toBe(400);
      expect(r.json.error.message).toBe(message);
      if (field) expect(r.json.error.fields).toEqual({ [field]: message });
      expect(await linkCount()).toBe(before);
    });
  }

  test("malformed JSON is a 400 and makes nothing", async () => {
    const before = await linkCount();
    const r = await t.call("POST", "/api/links", { raw: '{"originalUrl":"https://example.com/x","title":"x","smart":{"password":', headers: { "content-type": "application/json" }, cookie: alice.cookie });
    expect(r.status).toBe(400);
    expect(await linkCount()).toBe(before);
  });

  test("a retried create (same externalId) answers the first link, its settings unchanged", async () => {
    const first = await create({ externalId: "crm-smart", smart: { maxClicks: 5 } });
    expect(first.status).toBe(201);
    const again = await create({ externalId: "crm-smart", smart: { password: "other pass" } });
    expect(again.status).toBe(200);
    expect(await smartOf(first.json.id)).toMatchObject({ hasPassword: false, maxClicks: 5 });
  });
});

describe("edit and PATCH", () => {
  const edit = (method: "PUT" | "PATCH", id: number, body: Json, who = alice, tracker = "links") => t.call(method, `/api/${tracker}/${id}`, { body: body as never, cookie: who.cookie });

  test("PATCH or PUT with smart as an empty list: refused, the settings kept (it read as 'no settings' and removed them)", async () => {
    const l = (await create({ smart: { maxClicks: 3, fallbackUrl: "https://example.com/sold-out" } })).json;
    for (const method of ["PATCH", "PUT"] as const) {
      const body = method === "PUT" ? { originalUrl: "https://example.com/x", title: "x", shortCode: l.shortCode, smart: [] } : { smart: [] };
      const r = await edit(method, l.id, body);
      expect(r.status).toBe(400);
      expect(r.json.error).toMatchObject({ code: "VALIDATION", message: "Smart settings must be an object", fields: { smart: "Smart settings must be an object" } });
      expect(await smartOf(l.id)).toMatchObject({ maxClicks: 3, fallbackUrl: "https://example.com/sold-out" });
    }
  });

  test("PATCH with smart sets them; without keeps them (the password too); null removes them all", async () => {
    const l = (await create({})).json;
    const r = await edit("PATCH", l.id, { smart: { password: "patch pass", maxClicks: 2 } });
    expect(r.status).toBe(200);
    expect(r.json.smart).toEqual({ protected: true, limited: true, spent: false, ruled: false, split: false });
    const hash = JSON.parse((await column(l.id)).smart!).passwordHash;
    expect((await edit("PATCH", l.id, { title: "Renamed" })).json.smart).toEqual({ protected: true, limited: true, spent: false, ruled: false, split: false });
    // An absent password inside smart keeps the hash (as PUT …/smart): the same hash, not rehashed.
    expect((await edit("PATCH", l.id, { smart: { maxClicks: 7 } })).status).toBe(200);
    expect(JSON.parse((await column(l.id)).smart!)).toMatchObject({ passwordHash: hash, maxClicks: 7 });
    await passwordWorks(t, l.shortCode, "patch pass");
    const cleared = await edit("PATCH", l.id, { smart: null });
    expect(cleared.json.smart).toBeNull();
    expect(await smartOf(l.id)).toMatchObject({ hasPassword: false, maxClicks: null });
    expect((await t.call("GET", `/${l.shortCode}`)).status).toBe(302);
  });

  for (const tracker of ["links", "pic-drift-links"]) {
    test(`${tracker}: PUT with smart replaces them; PUT without keeps them`, async () => {
      const l = (await create({ smart: { maxClicks: 3 } }, alice, tracker)).json;
      const full = { shortCode: l.shortCode, originalUrl: l.originalUrl, title: "Edited", description: "" };
      const r = await edit("PUT", l.id, { ...full, smart: { rules: [{ when: { device: ["mobile"] }, url: "https://example.com/m" }] } }, alice, tracker);
      expect(r.status).toBe(200);
      expect(r.json.smart).toEqual({ protected: false, limited: false, spent: false, ruled: true, split: false });
      expect((await edit("PUT", l.id, full, alice, tracker)).json.smart).toEqual({ protected: false, limited: false, spent: false, ruled: true, split: false });
    });
  }

  test("refused settings on an edit: 400 naming the field, nothing changed", async () => {
    const l = (await create({ smart: { maxClicks: 4 } })).json;
    const before = await column(l.id);
    for (const [smart, message] of [
      [{ maxClicks: 4, colour: "red" }, "Unknown field: colour"],
      [{ fallbackUrl: "https://example.com/f" }, "A fallback URL needs a click limit"],
      [{ split: { variants: [{ url: "https://example.com/a", weight: 1 }, { url: "https://example.com/b", weight: 1e9 }] } }, "Weights are whole numbers from 1 to 1,000"],
    ] as const) {
      const r = await edit("PATCH", l.id, { title: "Changed", smart });
      expect(r.status).toBe(400);
      expect(r.json.error.message).toBe(message);
    }
    expect(await column(l.id)).toEqual(before);
  });

  test("another user's link: 404 on PUT and PATCH, nothing changed", async () => {
    const l = (await create({ smart: { password: "alice only" } })).json;
    const before = await column(l.id);
    expect((await edit("PATCH", l.id, { smart: null }, bob)).status).toBe(404);
    expect((await edit("PUT", l.id, { originalUrl: "https://example.com/bob", title: "Bob", smart: { maxClicks: 1 } }, bob)).status).toBe(404);
    expect(await column(l.id)).toEqual(before);
  });
});

describe("bulk create", () => {
  test("items with settings are made with them; an item with bad settings is refused alone", async () => {
    const code = nextCode();
    const r = await t.call("POST", "/api/links/bulk", {
      body: {
        links: [
          { originalUrl: "https://example.com/b1", title: "b1", shortCode: `${code}a`, smart: { password: "bulk pass", maxClicks: 2 } },
          { originalUrl: "https://example.com/b2", title: "b2", shortCode: `${code}b`, smart: { maxClicks: 2, secret: 1 } },
          { originalUrl: "https://example.com/b3", title: "b3", shortCode: `${code}c`, smart: { rules: [{ when: { os: ["ios"] }, url: "http://localhost:3000/x" }] } },
          { originalUrl: "https://example.com/b4", title: "b4", shortCode: `${code}d` },
        ],
      },
      cookie: alice.cookie,
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ created: 2, refused: 2 });
    expect(r.json.results[0].link.smart).toEqual({ protected: true, limited: true, spent: false, ruled: false, split: false });
    expect(r.json.results[1].error).toMatchObject({ code: "VALIDATION", message: "Unknown field: secret" });
    expect(r.json.results[2].error).toMatchObject({ code: "VALIDATION", fields: { "smart.rules.0.url": expect.any(String) } });
    expect(r.json.results[3].link.smart).toBeNull();
    expect((await column(r.json.results[0].link.id)).smart).not.toContain("bulk pass");
    await passwordWorks(t, `${code}a`, "bulk pass");
    expect(await t.database.get("SELECT 1 AS x FROM short_links WHERE short_code = ?", `${code}b`)).toBeNull();
  });
});

async function importFile(app: typeof t, cookie: string, body: string, type: string) {
  const res = await app.app.handle(new Request(`${ORIGIN}/api/links/import`, { method: "POST", headers: { host: "localhost:3000", cookie, "content-type": type }, body }));
  return { status: res.status, json: (await res.json()) as Json & { results: Json[] } };
}

describe("export and import of the settings", () => {
  test("the exports carry the settings, the password only as its hash", async () => {
    const l = (await create({ smart: SETTINGS })).json;
    const json = await t.call("GET", "/api/links/export.json", { cookie: alice.cookie });
    const row = (json.json.links as Json[]).find((x) => x.shortCode === l.shortCode)!;
    expect(row.smart).toMatchObject({ passwordHash: expect.stringMatching(/^\$argon2id\$/), maxClicks: 10, fallbackUrl: "https://example.com/sold-out" });
    expect(row.smart).not.toHaveProperty("password");
    expect(json.text).not.toContain("open sesame");
    const csv = await t.call("GET", "/api/links/export.csv", { cookie: alice.cookie });
    expect(csv.text.split("\r\n")[0]).toEndWith(",smart");
    expect(csv.text).not.toContain("open sesame");
    expect(csv.text).toContain("$argon2id$");
  });

  for (const format of ["json", "csv"] as const) {
    test(`${format}: export, import into another account elsewhere: the same settings, the same password works`, async () => {
      const other = await setup();
      const carol = await other.signUp("carol");
      const made = [(await create({ smart: SETTINGS })).json, (await create({ smart: { maxClicks: 1, rules: [{ when: { from: "2030-01-01T00:00:00Z", until: "2031-01-01T00:00:00Z" }, url: "https://example.com/later" }] } })).json, (await create({})).json];
      const out = await t.call("GET", `/api/links/export.${format}`, { cookie: alice.cookie });
      const r = await importFile(other, carol.cookie, out.text, format === "json" ? "application/json" : "text/csv");
      expect(r.status).toBe(200);
      expect(r.json.skipped).toBe(0);
      const hashes = async (app: typeof t, code: string) => JSON.parse((await app.database.get<{ smart: string }>("SELECT smart FROM short_links WHERE short_code = ?", code))!.smart ?? "null")?.passwordHash ?? null;
      for (const l of made) {
        const there = (await other.call("GET", `/api/links/lookup?code=${l.shortCode}`, { cookie: carol.cookie })).json;
        const { clicks: _a, ...mine } = await smartOf(l.id);
        const { clicks: _b, ...theirs } = (await other.call("GET", `/api/links/${there.id}/smart`, { cookie: carol.cookie })).json as Json;
        expect(theirs).toEqual(mine);
        expect(await hashes(other, l.shortCode)).toBe(await hashes(t, l.shortCode));
      }
      await passwordWorks(other, made[0]!.shortCode, "open sesame");
    });
  }

  test("import: a plain password is hashed; a malformed hash, or both, refuse the row alone", async () => {
    const code = nextCode();
    const links = [
      { originalUrl: "https://example.com/i1", title: "i1", shortCode: `${code}a`, smart: { password: "plain text" } },
      { originalUrl: "https://example.com/i2", title: "i2", shortCode: `${code}b`, smart: { passwordHash: "$argon2id$v=19$m=1,t=1,p=1$'; DROP TABLE users; --" } },
      { originalUrl: "https://example.com/i3", title: "i3", shortCode: `${code}c`, smart: { passwordHash: "$2b$10$abcdefghijklmnopqrstuv" } },
      { originalUrl: "https://example.com/i4", title: "i4", shortCode: `${code}d`, smart: { password: "x1234", passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$abcdefghijk$abcdefghijklmnopqrstuv" } },
      { originalUrl: "https://example.com/i5", title: "i5", shortCode: `${code}e`, smart: "<script>alert(1)</script>" },
    ];
    const r = await importFile(t, alice.cookie, JSON.stringify({ links }), "application/json");
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ imported: 1, skipped: 4 });
    expect(r.json.results.map((x) => (x.error as Json | undefined)?.message ?? x.status)).toEqual([
      "imported",
      "passwordHash must be a password hash from this app's export",
      "passwordHash must be a password hash from this app's export",
      "Send password or passwordHash, not both",
      "Smart settings must be an object",
    ]);
    expect(JSON.parse((await t.database.get<{ smart: string }>("SELECT smart FROM short_links WHERE short_code = ?", `${code}a`))!.smart).passwordHash).toStartWith("$argon2id$");
    await passwordWorks(t, `${code}a`, "plain text");
  });

  test("CSV import: a smart cell that is not JSON refuses its row by name", async () => {
    const code = nextCode();
    const csv = `url,code,title,smart\r\nhttps://example.com/c1,${code}a,c1,"{""maxClicks"":3}"\r\nhttps://example.com/c2,${code}b,c2,{not json\r\n`;
    const r = await importFile(t, alice.cookie, csv, "text/csv");
    expect(r.json).toMatchObject({ imported: 1, skipped: 1 });
    expect((r.json.results[1]!.error as Json).message).toBe("Smart settings must be an object");
    const made = (await t.call("GET", `/api/links/lookup?code=${code}a`, { cookie: alice.cookie })).json;
    expect(made.smart).toEqual({ protected: false, limited: true, spent: false, ruled: false, split: false });
  });
});
