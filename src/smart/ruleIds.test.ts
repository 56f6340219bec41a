// A click stays credited to the rule or split destination that sent it when rules are moved,
// removed or added (stable ids, session 13 follow-ups). Both backends: TEST_BACKEND=postgres runs
// this file on PostgreSQL.
import { describe, expect, test } from "bun:test";
import { ORIGIN, setup } from "../test/helpers";

const t = await setup();
const alice = await t.signUp("alice");

const UA = {
  iphone: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  android: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
  windows: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
};
type Rule = { id?: number; name: string; when: Record<string, unknown>; url: string };

let n = 0;
async function makeLink() {
  const code = `ids${++n}x`;
  const r = await t.call("POST", "/api/links", { body: { originalUrl: `https://example.com/${code}`, title: code, shortCode: code }, cookie: alice.cookie });
  if (r.status !== 201) throw new Error(r.text);
  return r.json as { id: number; shortCode: string };
}
const put = async (id: number, body: unknown) => {
  const r = await t.call("PUT", `/api/links/${id}/smart`, { body: body as never, cookie: alice.cookie });
  if (r.status !== 200) throw new Error(r.text);
  return r.json as { rules: Rule[]; split: { variants: (Rule & { weight: number })[] } | null };
};
const view = async (id: number) => (await t.call("GET", `/api/links/${id}/smart`, { cookie: alice.cookie })).json as { rules: Rule[]; split: { sticky: boolean; variants: { id: number; name: string; url: string; weight: number }[] } | null };
const visit = (code: string, headers: Record<string, string>) => t.call("GET", `/${code}`, { headers });
async function routes(id: number) {
  await t.settle();
  const a = await t.call("GET", `/api/links/${id}/analytics`, { cookie: alice.cookie });
  return Object.fromEntries((a.json.smart.routes as { route: string; name: string; count: number }[]).map((r) => [r.route, `${r.name} ×${r.count}`]));
}

const IPHONE: Rule = { name: "iPhone", when: { os: ["ios"] }, url: "https://apps.apple.com/app/1" };
const ANDROID: Rule = { name: "Android", when: { os: ["android"] }, url: "https://play.google.com/store/apps/1" };
const GERMAN: Rule = { name: "German", when: { language: ["de"] }, url: "https://example.com/de" };

/** One click each for the iPhone, Android and German rules. */
async function clickEach(code: string) {
  expect((await visit(code, { "user-agent": UA.iphone })).headers.get("location")).toBe(IPHONE.url);
  expect((await visit(code, { "user-agent": UA.android })).headers.get("location")).toBe(ANDROID.url);
  expect((await visit(code, { "user-agent": UA.windows, "accept-language": "de" })).headers.get("location")).toBe(GERMAN.url);
}

describe("rules keep their clicks", () => {
  test("moved: each rule's clicks stay under its name, new clicks add to them", async () => {
    const l = await makeLink();
    const saved = await put(l.id, { rules: [IPHONE, ANDROID, GERMAN] });
    expect(saved.rules.map((r) => r.id)).toEqual([1, 2, 3]);
    await clickEach(l.shortCode);
    // As the dialog does: the rules as read, German moved to the top.
    const [a, b, c] = (await view(l.id)).rules;
    const moved = await put(l.id, { rules: [c, a, b] });
    expect(moved.rules.map((r) => [r.id, r.name])).toEqual([[3, "German"], [1, "iPhone"], [2, "Android"]]);
    await clickEach(l.shortCode);
    expect(await routes(l.id)).toEqual({ "rule:3": "Rule 1: German ×2", "rule:1": "Rule 2: iPhone ×2", "rule:2": "Rule 3: Android ×2" });
    // The click rows carry the same ids.
    const rows = await t.database.all<{ route: string }>("SELECT route FROM link_analytics WHERE link_id = ? ORDER BY id", l.id);
    expect(rows.map((r) => r.route)).toEqual(["rule:1", "rule:2", "rule:3", "rule:1", "rule:2", "rule:3"]);
  });

  test("removed: its clicks are named as a removed rule, not after the rule now in its place; a new rule gets a new id", async () => {
    const l = await makeLink();
    await put(l.id, { rules: [IPHONE, ANDROID, GERMAN] });
    await clickEach(l.shortCode);
    const [a, , c] = (await view(l.id)).rules;
    // Android removed; a new rule (no id) added at the end, then German removed too.
    const saved = await put(l.id, { rules: [a, c, { name: "Desktop", when: { device: ["desktop"] }, url: "https://example.com/desk" }] });
    expect(saved.rules.map((r) => r.id)).toEqual([1, 3, 4]);
    const again = await put(l.id, { rules: [saved.rules[0], saved.rules[2]] });
    expect(again.rules.map((r) => r.id)).toEqual([1, 4]);
    // A rule added after removals never takes a removed id (and so its clicks).
    const more = await put(l.id, { rules: [...again.rules, { name: "Android again", when: { os: ["android"] }, url: "https://example.com/a" }] });
    expect(more.rules.map((r) => r.id)).toEqual([1, 4, 5]);
    expect((await visit(l.shortCode, { "user-agent": UA.windows })).headers.get("location")).toBe("https://example.com/desk");
    expect(await routes(l.id)).toEqual({
      "rule:1": "Rule 1: iPhone ×1",
      "rule:2": "Removed rule (id 2) ×1",
      "rule:3": "Removed rule (id 3) ×1",
      "rule:4": "Rule 2: Desktop ×1",
    });
  });

  test("a client that sends no ids: an unchanged rule keeps its id wherever it moves; an id it invents is not taken", async () => {
    const l = await makeLink();
    await put(l.id, { rules: [IPHONE, ANDROID, GERMAN] });
    const back = await put(l.id, { rules: [GERMAN, IPHONE, { ...ANDROID, id: 99 }] });
    expect(back.rules.map((r) => r.id)).toEqual([3, 1, 2]);
    const changed = await put(l.id, { rules: [{ ...GERMAN, url: "https://example.com/de2" }, IPHONE] });
    expect(changed.rules.map((r) => r.id)).toEqual([4, 1]);
  });

  test("settings saved before ids: old clicks, recorded by position, are read as those rules' and keep them through a move", async () => {
    const l = await makeLink();
    await put(l.id, { rules: [IPHONE, ANDROID, GERMAN] });
    // The stored settings as an earlier version wrote them: no ids, no counters.
    const row = (await t.database.get<{ smart: string }>("SELECT smart FROM short_links WHERE id = ?", l.id))!;
    const old = JSON.parse(row.smart);
    for (const r of old.rules) delete r.id;
    delete old.ruleSeq;
    delete old.variantSeq;
    await t.database.run("UPDATE short_links SET smart = ? WHERE id = ?", JSON.stringify(old), l.id);
    await clickEach(l.shortCode);
    const read = await view(l.id);
    expect(read.rules.map((r) => r.id)).toEqual([1, 2, 3]);
    expect(await routes(l.id)).toEqual({ "rule:1": "Rule 1: iPhone ×1", "rule:2": "Rule 2: Android ×1", "rule:3": "Rule 3: German ×1" });
    const [a, b, c] = read.rules;
    await put(l.id, { rules: [b, c] });
    expect(await routes(l.id)).toEqual({ "rule:1": "Removed rule (id 1) ×1", "rule:2": "Rule 1: Android ×1", "rule:3": "Rule 2: German ×1" });
    // A rule added now is new, though the old settings had no counter.
    expect((await put(l.id, { rules: [b, c, { ...a, id: undefined, name: "iPhone 2" }] })).rules.map((r) => r.id)).toEqual([2, 3, 4]);
  });

  test("the simulator answers with the rule's id and current name", async () => {
    const l = await makeLink();
    await put(l.id, { rules: [IPHONE, ANDROID] });
    const [a, b] = (await view(l.id)).rules;
    await put(l.id, { rules: [b, a] });
    const r = await t.call("POST", `/api/links/${l.id}/simulate`, { body: { os: "ios" }, cookie: alice.cookie });
    expect(r.json.route).toBe("rule:1");
    expect(r.json.reason).toContain("iPhone matched");
    expect(r.json.steps.map((s: { rule: string }) => s.rule)).toEqual(["Android", "iPhone"]);
  });
});

describe("split destinations keep their clicks", () => {
  test("reordered and one removed: clicks stay with their destination", async () => {
    const l = await makeLink();
    const A = { name: "Blue", url: "https://example.com/blue", weight: 1 };
    const B = { name: "Green", url: "https://example.com/green", weight: 1000 };
    const C = { name: "Red", url: "https://example.com/red", weight: 1 };
    const saved = await put(l.id, { split: { variants: [A, B, C] } });
    expect(saved.split!.variants.map((x) => x.id)).toEqual([1, 2, 3]);
    // Weighted 1000 to 2: green nearly always (a miss is 1 in 500 a click: the test reads the route it got).
    expect((await visit(l.shortCode, {})).status).toBe(302);
    const [a, b] = (await view(l.id)).split!.variants;
    await put(l.id, { split: { variants: [b, a] } });
    const got = await routes(l.id);
    const names: Record<string, string> = { "variant:1": "Destination B: Blue ×1", "variant:2": "Destination A: Green ×1", "variant:3": "Removed destination (id 3) ×1" };
    for (const [route, name] of Object.entries(got)) expect(name).toBe(names[route]!);
  });
});

describe("export and import", () => {
  test("the ids round-trip through a JSON export into another instance", async () => {
    const l = await makeLink();
    await put(l.id, { rules: [IPHONE, ANDROID, GERMAN] });
    const [a, b, c] = (await view(l.id)).rules;
    await put(l.id, { rules: [c, a], split: { variants: [{ name: "x", url: "https://example.com/x", weight: 1 }, { name: "y", url: "https://example.com/y", weight: 1 }] } });
    const out = await t.call("GET", "/api/links/export.json", { cookie: alice.cookie });
    const mine = (out.json.links as { shortCode: string; smart: { rules: Rule[] } }[]).find((x) => x.shortCode === l.shortCode)!;
    expect(mine.smart.rules.map((r) => r.id)).toEqual([3, 1]);
    expect(b).toBeDefined();
    const other = await setup();
    const carol = await other.signUp("carol");
    const res = await other.app.handle(new Request(`${ORIGIN}/api/links/import`, { method: "POST", headers: { host: "localhost:3000", cookie: carol.cookie, "content-type": "application/json" }, body: out.text }));
    expect(res.status).toBe(200);
    const there = (await other.call("GET", `/api/links/lookup?code=${l.shortCode}`, { cookie: carol.cookie })).json;
    const theirs = (await other.call("GET", `/api/links/${there.id}/smart`, { cookie: carol.cookie })).json as { rules: Rule[]; split: { variants: { id: number }[] } };
    expect(theirs.rules.map((r) => [r.id, r.name])).toEqual([[3, "German"], [1, "iPhone"]]);
    expect(theirs.split.variants.map((x) => x.id)).toEqual([1, 2]);
  });
});
