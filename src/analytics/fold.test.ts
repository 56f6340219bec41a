// The folded per-link index (issue 12, migrations/0008): click rows carry no (link_id) index;
// link_clicks holds a link's clicks up to the fold mark, and every reader adds the unfolded tail.
// A tiny fold interval here puts every link's clicks on both sides of the mark.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../db/open";
import { migrate } from "../db/migrate";
import { linksStore, type LinkRow } from "../links/store";
import { analyticsStore } from "./store";
import { analyticsReports } from "./report";
import { ClickRecorder, type RawClick } from "./recorder";

const FOLD = 6;

function fixture() {
  const dir = mkdtempSync(join(tmpdir(), "threadlink-fold-"));
  const db = openDb(dir);
  migrate(db);
  const now = new Date().toISOString();
  const user = db.prepare("INSERT INTO users (id, username, password_hash, email, created_at, updated_at) VALUES (?, ?, 'x', ?, ?, ?)");
  user.run(1, "fold", "fold@example.test", now, now);
  user.run(2, "other", "other@example.test", now, now);
  const links = linksStore(db);
  const make = (userId: number, code: string) => links.create(userId, "brand", { shortCode: code, originalUrl: `https://example.com/${code}`, title: code, description: "", expiresAt: null });
  const recorder = new ClickRecorder(db, { ipStorage: "full", geoipDb: null, foldEvery: FOLD });
  let at = Date.parse("2026-11-01T10:00:00.000Z");
  const click = (linkId: number, visitorId: string, newVisitor: boolean, ua = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"): RawClick => ({
    linkId,
    at: (at += 1000),
    userAgent: ua,
    referrer: "https://news.example/item",
    ip: "10.0.0.7",
    visitorId,
    newVisitor,
    source: "direct",
    country: null,
    city: null,
  });
  const folded = () => (db.query("SELECT folded FROM click_fold").get() as { folded: number }).folded;
  const rowsOf = (linkId: number) => (db.query("SELECT COUNT(*) AS n FROM link_analytics WHERE link_id = ?").get(linkId) as { n: number }).n;
  const indexedOf = (linkId: number) => (db.query("SELECT COUNT(*) AS n FROM link_clicks WHERE link_id = ?").get(linkId) as { n: number }).n;
  const done = async () => {
    await recorder.stop();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { db, links, make, recorder, click, folded, rowsOf, indexedOf, done };
}

const csvOf = async (db: ReturnType<typeof openDb>, link: LinkRow) => (await new Response(analyticsReports(db).csv(link)).text()).trim().split("\r\n");

test("visit numbers and returning visitors count on across the fold; every reader sees folded and unfolded clicks", async () => {
  const f = fixture();
  try {
    const a = f.make(1, "folda");
    const b = f.make(1, "foldb");
    // One visitor's clicks on a, one transaction each (flush), with clicks on b between them:
    // the fold (every 6 clicks) lands between a visitor's visits.
    for (let i = 0; i < 4; i++) {
      f.recorder.capture(f.click(a.id, "visitor-one", i === 0));
      f.recorder.capture(f.click(b.id, `b-visitor-${i}`, true));
      expect(await f.recorder.flush()).toBe(true);
    }
    // Folded so far: a's first clicks are in link_clicks, the last ones in the tail.
    expect(f.folded()).toBeGreaterThan(0);
    expect(f.indexedOf(a.id)).toBeGreaterThan(0);
    expect(f.indexedOf(a.id)).toBeLessThan(4);
    // A second visitor, and the first one again, in the same transaction.
    f.recorder.capture(f.click(a.id, "visitor-two", true, "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"));
    f.recorder.capture(f.click(a.id, "visitor-one", false));
    f.recorder.capture(f.click(a.id, "visitor-two", false));
    expect(await f.recorder.flush()).toBe(true);
    expect(f.rowsOf(a.id)).toBe(7);
    expect(f.indexedOf(a.id)).toBeLessThan(7);

    const link = f.links.get(a.id, 1, "brand")!;
    const report = analyticsReports(f.db).report(link, "https://t.example/folda", {});
    expect(report.clickCount).toBe(7);
    expect(report.uniqueVisitors).toBe(2);
    // Newest first, across the mark: visits 1..5 of visitor-one, 1..2 of visitor-two.
    const visits = report.clicks.map((c) => [c.metadata.visitNumber, c.metadata.isReturningVisitor]);
    expect(visits).toEqual([[2, true], [5, true], [1, false], [4, true], [3, true], [2, true], [1, false]]);
    expect(report.clicks.map((c) => c.id)).toEqual([...report.clicks.map((c) => c.id)].sort((x, y) => y - x));
    expect(report.lastClick).toBe(report.clicks[0]!.timestamp);
    expect(report.tallies.browser).toEqual([{ name: "Firefox", count: 6 }, { name: "Mobile Safari", count: 1 }]);
    expect(report.tallies.referrer).toEqual([{ name: "news.example", count: 7 }]);
    // Pages split across the mark.
    const store = analyticsStore(f.db);
    expect([...store.page(a.id, 3, 0), ...store.page(a.id, 3, 3), ...store.page(a.id, 3, 6)].map((c) => c.id)).toEqual(report.clicks.map((c) => c.id));
    // The CSV: the same clicks, newest first, visit numbers as above.
    const csv = await csvOf(f.db, link);
    expect(csv).toHaveLength(8);
    expect(csv.slice(1).map((line) => line.split(",").slice(7, 9).join(" "))).toEqual([
      "Return Visit 2", "Return Visit 5", "New Visit 1", "Return Visit 4", "Return Visit 3", "Return Visit 2", "New Visit 1",
    ]);
    // Roll-ups fold on: three more clicks after the report, counted once each.
    for (let i = 0; i < 3; i++) f.recorder.capture(f.click(a.id, "visitor-one", false));
    expect(await f.recorder.flush()).toBe(true);
    const again = analyticsReports(f.db).report(f.links.get(a.id, 1, "brand")!, "https://t.example/folda", {});
    expect(again.clickCount).toBe(10);
    expect(again.tallies.browser).toEqual([{ name: "Firefox", count: 9 }, { name: "Mobile Safari", count: 1 }]);
    expect(again.clicks.slice(0, 3).map((c) => c.metadata.visitNumber)).toEqual([8, 7, 6]);
    // b is untouched by a's reads.
    expect(analyticsStore(f.db).page(b.id, 10, 0)).toHaveLength(4);
  } finally {
    await f.done();
  }
});

test("a graceful stop folds the tail: after it every click is in link_clicks", async () => {
  const f = fixture();
  try {
    const a = f.make(1, "stopa");
    for (let i = 0; i < 12; i++) f.recorder.capture(f.click(a.id, `v${i}`, true));
    await f.recorder.stop();
    expect(f.rowsOf(a.id)).toBe(12);
    expect(f.indexedOf(a.id)).toBe(12);
    expect(f.folded()).toBe((f.db.query("SELECT MAX(id) AS id FROM link_analytics").get() as { id: number }).id);
  } finally {
    await f.done();
  }
});

test("deleting a link, resetting it or deleting its account removes its clicks, folded and unfolded, and no one else's", async () => {
  const f = fixture();
  try {
    const a = f.make(1, "dela");
    const b = f.make(1, "delb");
    const c = f.make(1, "delc");
    const other = f.make(2, "delother");
    for (let round = 0; round < 3; round++) {
      for (const link of [a, b, c, other]) f.recorder.capture(f.click(link.id, `v-${link.id}-${round}`, true));
      expect(await f.recorder.flush()).toBe(true);
    }
    for (const link of [a, b, c, other]) {
      expect(f.rowsOf(link.id)).toBe(3);
      // Some folded, some not, for every link.
      expect(f.indexedOf(link.id)).toBeGreaterThan(0);
      expect(f.indexedOf(link.id)).toBeLessThan(3);
    }
    expect(f.links.delete(a.id, 1, "brand")).toMatchObject({ id: a.id });
    expect(f.rowsOf(a.id)).toBe(0);
    expect(f.indexedOf(a.id)).toBe(0);

    f.links.resetClicks(b.id);
    expect(f.rowsOf(b.id)).toBe(0);
    expect(f.indexedOf(b.id)).toBe(0);
    expect(analyticsStore(f.db).page(b.id, 10, 0)).toEqual([]);
    // New clicks after the reset are b's again, numbered afresh.
    f.recorder.capture(f.click(b.id, "v-b-after", true));
    expect(await f.recorder.flush()).toBe(true);
    expect(analyticsStore(f.db).page(b.id, 10, 0).map((x) => x.metadata.visitNumber)).toEqual([1]);

    // The account: its links go by the foreign key, their clicks by the trigger.
    f.db.query("DELETE FROM users WHERE id = 1").run();
    for (const link of [b, c]) {
      expect(f.rowsOf(link.id)).toBe(0);
      expect(f.indexedOf(link.id)).toBe(0);
    }
    // Someone else's clicks stay, readable.
    expect(f.rowsOf(other.id)).toBe(3);
    expect(analyticsStore(f.db).page(other.id, 10, 0)).toHaveLength(3);
    expect((f.db.query("SELECT COUNT(*) AS n FROM link_analytics").get() as { n: number }).n).toBe(3);
  } finally {
    await f.done();
  }
});

test("new click ids stay above the fold mark after the newest folded clicks are deleted", async () => {
  const f = fixture();
  try {
    const a = f.make(1, "ida");
    const b = f.make(1, "idb");
    f.recorder.capture(f.click(a.id, "va", true));
    for (let i = 0; i < FOLD; i++) f.recorder.capture(f.click(b.id, `vb${i}`, true));
    expect(await f.recorder.flush()).toBe(true);
    const mark = f.folded();
    expect(mark).toBe((f.db.query("SELECT MAX(id) AS id FROM link_analytics").get() as { id: number }).id);
    // b held the newest clicks, all folded; without the mark, the next id would reuse them.
    f.links.delete(b.id, 1, "brand");
    f.recorder.capture(f.click(a.id, "va", false));
    expect(await f.recorder.flush()).toBe(true);
    const ids = analyticsStore(f.db).page(a.id, 10, 0).map((x) => x.id);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBeGreaterThan(mark);
    expect(analyticsStore(f.db).page(a.id, 10, 0).map((x) => x.metadata.visitNumber)).toEqual([2, 1]);
  } finally {
    await f.done();
  }
});
