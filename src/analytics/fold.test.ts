// Visit numbers, returning visitors and every per-link reader (report, pages, CSV, roll-ups,
// deletes, resets), on either backend. On SQLite these run across the folded per-link index
// (issue 12, migrations/0008): click rows carry no (link_id) index; link_clicks holds a link's
// clicks up to the fold mark, and every reader adds the unfolded tail. A tiny fold interval
// here puts every link's clicks on both sides of the mark. PostgreSQL keeps a (link_id, id)
// index instead (migrations/pg/0011) and never folds: the fold's own checks are SQLite's.
import { download } from "../downloads/jobs";
import { expect, test } from "bun:test";
import type { LinkRow } from "../links/store";
import { onPostgres } from "../test/helpers";
import { analyticsStore } from "./store";
import { analyticsReports } from "./report";
import { clickFixture } from "./clickFixture";
import type { Database } from "../db/database";

const FOLD = 6;
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

async function fixture() {
  const f = await clickFixture();
  const recorder = f.recorder({ ipStorage: "full", foldEvery: FOLD });
  const click = (linkId: number, visitorId: string, newVisitor: boolean, ua?: string) =>
    f.click(linkId, visitorId, newVisitor, { referrer: "https://news.example/item", ip: "10.0.0.7", ...(ua ? { userAgent: ua } : {}) });
  const n = async (sql: string, ...params: number[]) => (await f.db.get<{ n: number }>(sql, ...params))!.n;
  const folded = () => n("SELECT folded AS n FROM click_fold");
  const indexedOf = (linkId: number) => n("SELECT COUNT(*) AS n FROM link_clicks WHERE link_id = ?", linkId);
  const owner = await f.user("fold");
  const other = await f.user("other");
  return { ...f, recorder, click, folded, indexedOf, owner, other, make: (userId: number, code: string) => f.make(userId, code, "brand") };
}

const csvOf = async (db: Database, link: LinkRow) => (await new Response(download(db, { kind: "clicks", linkId: link.id })).text()).trim().split("\r\n");

test("visit numbers and returning visitors count on across transactions (and SQLite's fold); every reader sees every click", async () => {
  const f = await fixture();
  try {
    const a = await f.make(f.owner, "folda");
    const b = await f.make(f.owner, "foldb");
    // One visitor's clicks on a, one transaction each (flush), with clicks on b between them:
    // on SQLite the fold (every 6 clicks) lands between a visitor's visits.
    for (let i = 0; i < 4; i++) {
      f.recorder.capture(f.click(a.id, "visitor-one", i === 0));
      f.recorder.capture(f.click(b.id, `b-visitor-${i}`, true));
      expect(await f.recorder.flush()).toBe(true);
    }
    if (!onPostgres) {
      // Folded so far: a's first clicks are in link_clicks, the last ones in the tail.
      expect(await f.folded()).toBeGreaterThan(0);
      expect(await f.indexedOf(a.id)).toBeGreaterThan(0);
      expect(await f.indexedOf(a.id)).toBeLessThan(4);
    }
    // A second visitor, and the first one again, in the same transaction.
    f.recorder.capture(f.click(a.id, "visitor-two", true, IPHONE));
    f.recorder.capture(f.click(a.id, "visitor-one", false));
    f.recorder.capture(f.click(a.id, "visitor-two", false));
    expect(await f.recorder.flush()).toBe(true);
    expect(await f.rows(a.id)).toBe(7);
    if (!onPostgres) expect(await f.indexedOf(a.id)).toBeLessThan(7);

    const link = (await f.links.get(a.id, f.owner, "brand"))!;
    const report = await analyticsReports(f.db).report(link, "https://t.example/folda", {});
    expect(report.clickCount).toBe(7);
    expect(report.uniqueVisitors).toBe(2);
    // Newest first: visits 1..5 of visitor-one, 1..2 of visitor-two.
    const visits = report.clicks.map((c) => [c.metadata.visitNumber, c.metadata.isReturningVisitor]);
    expect(visits).toEqual([[2, true], [5, true], [1, false], [4, true], [3, true], [2, true], [1, false]]);
    expect(report.clicks.map((c) => c.id)).toEqual([...report.clicks.map((c) => c.id)].sort((x, y) => y - x));
    expect(report.lastClick).toBe(report.clicks[0]!.timestamp);
    expect(report.tallies.browser).toEqual([{ name: "Firefox", count: 6 }, { name: "Mobile Safari", count: 1 }]);
    expect(report.tallies.referrer).toEqual([{ name: "news.example", count: 7 }]);
    // Pages (on SQLite split across the mark).
    const store = analyticsStore(f.db);
    const pages = [];
    for (let before = Number.MAX_SAFE_INTEGER; ; ) {
      const page = await store.page(a.id, 3, before);
      pages.push(...page);
      if (page.length < 3) break;
      before = page[page.length - 1]!.id;
    }
    expect(pages.map((c) => c.id)).toEqual(report.clicks.map((c) => c.id));
    // The CSV: the same clicks, newest first, visit numbers as above.
    const csv = await csvOf(f.db, link);
    expect(csv).toHaveLength(8);
    expect(csv.slice(1).map((line) => line.split(",").slice(7, 9).join(" "))).toEqual([
      "Return Visit 2", "Return Visit 5", "New Visit 1", "Return Visit 4", "Return Visit 3", "Return Visit 2", "New Visit 1",
    ]);
    // Roll-ups go on: three more clicks after the report, counted once each.
    for (let i = 0; i < 3; i++) f.recorder.capture(f.click(a.id, "visitor-one", false));
    expect(await f.recorder.flush()).toBe(true);
    const again = await analyticsReports(f.db).report((await f.links.get(a.id, f.owner, "brand"))!, "https://t.example/folda", {});
    expect(again.clickCount).toBe(10);
    expect(again.uniqueVisitors).toBe(2);
    expect(again.tallies.browser).toEqual([{ name: "Firefox", count: 9 }, { name: "Mobile Safari", count: 1 }]);
    expect(again.clicks.slice(0, 3).map((c) => c.metadata.visitNumber)).toEqual([8, 7, 6]);
    // b is untouched by a's reads.
    expect(await analyticsStore(f.db).page(b.id, 10, Number.MAX_SAFE_INTEGER)).toHaveLength(4);
  } finally {
    await f.done();
  }
});

test("the CSV of more clicks than one page comes whole, newest first, in pages", async () => {
  const f = await fixture();
  try {
    const a = await f.make(f.owner, "csvmany");
    const N = 2_345;
    for (let i = 0; i < N; i++) f.recorder.capture(f.click(a.id, `v${i % 100}`, false));
    expect(await f.recorder.flush()).toBe(true);
    const csv = await csvOf(f.db, (await f.links.get(a.id, f.owner, "brand"))!);
    expect(csv).toHaveLength(N + 1);
    const numbers = csv.slice(1).map((line) => Number(line.split(",")[8]));
    // Visitor v(k) made clicks k, k+100, …: newest first, its visit numbers count down to 1.
    expect(numbers[0]).toBe(Math.ceil((N - 44) / 100));
    expect(numbers.at(-1)).toBe(1);
    const stamps = csv.slice(1).map((line) => line.split(",")[0]!);
    expect(stamps).toEqual([...stamps].sort().reverse());
    expect(new Set(stamps).size).toBe(N);
  } finally {
    await f.done();
  }
});

// The fold itself: PostgreSQL does not fold.
test.skipIf(onPostgres)("a graceful stop folds the tail: after it every click is in link_clicks", async () => {
  const f = await fixture();
  try {
    const a = await f.make(f.owner, "stopa");
    for (let i = 0; i < 12; i++) f.recorder.capture(f.click(a.id, `v${i}`, true));
    await f.recorder.stop();
    expect(await f.rows(a.id)).toBe(12);
    expect(await f.indexedOf(a.id)).toBe(12);
    expect(await f.folded()).toBe((await f.db.get<{ id: number }>("SELECT MAX(id) AS id FROM link_analytics"))!.id);
  } finally {
    await f.done();
  }
});

test("deleting a link, resetting it or deleting its account removes its clicks (folded and unfolded on SQLite), and no one else's", async () => {
  const f = await fixture();
  try {
    const a = await f.make(f.owner, "dela");
    const b = await f.make(f.owner, "delb");
    const c = await f.make(f.owner, "delc");
    const other = await f.make(f.other, "delother");
    for (let round = 0; round < 3; round++) {
      for (const link of [a, b, c, other]) f.recorder.capture(f.click(link.id, `v-${link.id}-${round}`, true));
      expect(await f.recorder.flush()).toBe(true);
    }
    for (const link of [a, b, c, other]) {
      expect(await f.rows(link.id)).toBe(3);
      if (onPostgres) continue;
      // Some folded, some not, for every link.
      expect(await f.indexedOf(link.id)).toBeGreaterThan(0);
      expect(await f.indexedOf(link.id)).toBeLessThan(3);
    }
    expect(await f.links.delete(a.id, f.owner, "brand")).toMatchObject({ id: a.id });
    expect(await f.rows(a.id)).toBe(0);
    expect(await f.indexedOf(a.id)).toBe(0);

    await f.links.resetClicks(b.id);
    expect(await f.rows(b.id)).toBe(0);
    expect(await f.indexedOf(b.id)).toBe(0);
    expect(await analyticsStore(f.db).page(b.id, 10, Number.MAX_SAFE_INTEGER)).toEqual([]);
    // New clicks after the reset are b's again, numbered afresh.
    f.recorder.capture(f.click(b.id, "v-b-after", true));
    expect(await f.recorder.flush()).toBe(true);
    expect((await analyticsStore(f.db).page(b.id, 10, Number.MAX_SAFE_INTEGER)).map((x) => x.metadata.visitNumber)).toEqual([1]);

    // The account: its links go by the foreign key, their clicks by the trigger.
    await f.db.run("DELETE FROM users WHERE id = ?", f.owner);
    for (const link of [b, c]) {
      expect(await f.rows(link.id)).toBe(0);
      expect(await f.indexedOf(link.id)).toBe(0);
    }
    // Someone else's clicks stay, readable.
    expect(await f.rows(other.id)).toBe(3);
    expect(await analyticsStore(f.db).page(other.id, 10, Number.MAX_SAFE_INTEGER)).toHaveLength(3);
    expect((await f.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM link_analytics"))!.n).toBe(3);
  } finally {
    await f.done();
  }
});

// The fold mark: PostgreSQL does not fold, its ids come from the same rule without one.
test.skipIf(onPostgres)("new click ids stay above the fold mark after the newest folded clicks are deleted", async () => {
  const f = await fixture();
  try {
    const a = await f.make(f.owner, "ida");
    const b = await f.make(f.owner, "idb");
    f.recorder.capture(f.click(a.id, "va", true));
    for (let i = 0; i < FOLD; i++) f.recorder.capture(f.click(b.id, `vb${i}`, true));
    expect(await f.recorder.flush()).toBe(true);
    const mark = await f.folded();
    expect(mark).toBe((await f.db.get<{ id: number }>("SELECT MAX(id) AS id FROM link_analytics"))!.id);
    // b held the newest clicks, all folded; without the mark, the next id would reuse them.
    await f.links.delete(b.id, f.owner, "brand");
    f.recorder.capture(f.click(a.id, "va", false));
    expect(await f.recorder.flush()).toBe(true);
    const page = await analyticsStore(f.db).page(a.id, 10, Number.MAX_SAFE_INTEGER);
    expect(page).toHaveLength(2);
    expect(page[0]!.id).toBeGreaterThan(mark);
    expect(page.map((x) => x.metadata.visitNumber)).toEqual([2, 1]);
  } finally {
    await f.done();
  }
});
