// A report's roll-ups read in one statement (store.rollups, H-pgview), on either backend
// (TEST_BACKEND): each part equals what the single reads give (a dimension's top 10 with ties
// broken by value, the routes' top 50, the summary, the days from a date, the series' day and hour
// ranges), and another link's roll-ups never show.
import { expect, test } from "bun:test";
import { clickFixture } from "./clickFixture";
import { analyticsStore } from "./store";
import { DIMENSIONS } from "./schema";

const f = await clickFixture();

async function put(linkId: number, dim: string, value: string, count: number) {
  await f.db.run("INSERT INTO link_rollups (link_id, dim, value, count) VALUES (?, ?, ?, ?)", linkId, dim, value, count);
}

test("one statement reads every part of a report's roll-ups, each as the single reads give it, and only the link's own", async () => {
  const u = await f.user("rollups-one");
  const a = await f.make(u, "roll-a");
  const b = await f.make(u, "roll-b");
  // 14 cities, two of them tied at the cut (10 clicks): the tie is broken by value, as top() does.
  for (let i = 0; i < 14; i++) await put(a.id, "city", `city-${String(i).padStart(2, "0")}`, i === 3 ? 10 : 20 - i);
  for (const [v, n] of [["DE", 7], ["FR", 7], ["(unknown)", 1]] as const) await put(a.id, "country", v, n);
  for (let i = 0; i < 60; i++) await put(a.id, "route", `rule:${i}`, 100 + (i % 7));
  for (const [v, n] of [["unique", 9], ["new", 4], ["returning", 5], ["rows", 23]] as const) await put(a.id, "summary", v, n);
  for (const d of ["2026-10-30", "2026-11-01", "2026-11-02", "2026-11-05"]) await put(a.id, "day", d, 3);
  for (const h of ["2026-10-31T23", "2026-11-01T00", "2026-11-02T12", "2026-11-03T00"]) await put(a.id, "hour", h, 2);
  // The other link: the same dimensions and keys, different counts.
  for (const [dim, v] of [["city", "city-00"], ["country", "XX"], ["route", "rule:0"], ["summary", "unique"], ["day", "2026-11-01"], ["hour", "2026-11-01T00"]] as const) await put(b.id, dim, v, 1000);

  const store = analyticsStore(f.db);
  const keys = { since: "2026-11-01", dayFrom: "2026-10-31", dayTo: "2026-11-02", hourFrom: "2026-10-31T00", hourTo: "2026-11-02T23" };
  const got = await store.rollups(a.id, keys);

  for (const d of DIMENSIONS) expect({ d, t: got.tallies[d] }).toEqual({ d, t: await store.top(a.id, d) });
  expect(got.tallies.city).toHaveLength(10);
  expect(got.tallies.city.slice(-2)).toEqual([{ name: "city-09", count: 11 }, { name: "city-03", count: 10 }]);
  expect(got.tallies.country).toEqual([{ name: "DE", count: 7 }, { name: "FR", count: 7 }, { name: "(unknown)", count: 1 }]);
  expect(got.tallies.browser).toEqual([]);
  expect(got.routes).toEqual(await store.top(a.id, "route", 50));
  expect(got.routes).toHaveLength(50);
  expect(got.summary).toEqual(await store.summary(a.id));
  expect(got.summary).toEqual({ unique: 9, new: 4, returning: 5, rows: 23 });
  expect(got.days).toEqual(await store.days(a.id, keys.since));
  expect(got.days.map((d) => d.day)).toEqual(["2026-11-01", "2026-11-02", "2026-11-05"]);
  expect(got.dayRows).toEqual([{ value: "2026-11-01", count: 3 }, { value: "2026-11-02", count: 3 }]);
  expect(got.hourRows.map((h) => h.value)).toEqual(["2026-10-31T23", "2026-11-01T00", "2026-11-02T12"]);
  // Nothing of link b, and a link with no roll-ups reads empty parts.
  expect(JSON.stringify(got)).not.toContain("1000");
  expect(await store.rollups(0, keys)).toEqual({ tallies: Object.fromEntries(DIMENSIONS.map((d) => [d, []])) as never, routes: [], summary: {}, days: [], hourRows: [], dayRows: [] });
});
