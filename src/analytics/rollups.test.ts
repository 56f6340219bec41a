// Roll-ups written with the clicks (issue 21), on either backend (TEST_BACKEND): every figure a
// report shows equals the answer computed from the raw rows, across folds, resets, deletes, the
// one-time backfill and retention; the per-source throttle counts every click; stored text is
// bounded.
import { download } from "../downloads/jobs";
import { expect, test } from "bun:test";
import type { Database } from "../db/database";
import type { LinkRow } from "../links/store";
import { clickFixture } from "./clickFixture";
import { analyticsReports } from "./report";
import { analyticsStore, toClickView, type ClickRow } from "./store";
import { DETAIL_TEXT_MAX, referrerHost, UNKNOWN } from "./tallies";
import type { RawClick } from "./clickMessages";

const AGENTS = [
  "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  null,
];
const COUNTRIES = ["DE", "FR", null];
const CITIES = ["Berlin", null];
const REFERRERS = [null, "https://news.example/a", "https://Other.example:8080/x?y", "not a url"];
const DAY = 86_400_000;

/** A spread of clicks: agents (a bot among them), places, referrers, days, returning visitors. */
function clicksFor(linkId: number, n: number, seed: number, base = Date.now() - 5 * DAY): RawClick[] {
  const out: RawClick[] = [];
  for (let i = 0; i < n; i++) {
    const k = i + seed;
    out.push({
      linkId,
      at: base + i * 3_600_000,
      userAgent: AGENTS[k % AGENTS.length]!,
      referrer: REFERRERS[k % REFERRERS.length]!,
      ip: `8.8.${k % 7}.${k % 5}`,
      visitorId: k % 3 === 0 ? null : `v-${k % 11}`,
      newVisitor: false,
      source: k % 2 ? "qr" : "direct",
      country: COUNTRIES[k % COUNTRIES.length]!,
      city: CITIES[k % CITIES.length]!,
    });
  }
  return out;
}

type Raw = ClickRow & { link_id: number; visitor_id: string | null; is_bot: number | boolean };

/** The answers computed from the raw rows alone (what an on-read roll-up would find). */
async function rawAnswer(db: Database, linkId: number) {
  const rows = await db.all<Raw>("SELECT * FROM link_analytics WHERE link_id = ? ORDER BY id", linkId);
  const tally = (f: (r: Raw) => string) => {
    const m = new Map<string, number>();
    for (const r of rows) m.set(f(r), (m.get(f(r)) ?? 0) + 1);
    return [...m].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  };
  const views = rows.map(toClickView);
  const visitors = new Set(rows.filter((r) => !Number(r.is_bot) && r.visitor_id).map((r) => r.visitor_id));
  // A visit number is the visitor's clicks on the link so far (its non-bot clicks for a human).
  const seen = new Map<string, number>();
  const visitNumbers = rows.map((r) => {
    const key = `${Number(r.is_bot) ? "b" : "h"}${r.visitor_id}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return n;
  });
  return {
    rows,
    visitNumbers,
    tallies: {
      country: tally((r) => r.country ?? UNKNOWN),
      city: tally((r) => r.city ?? UNKNOWN),
      browser: tally((r) => r.browser ?? UNKNOWN),
      device: tally((r) => r.device_type ?? UNKNOWN),
      os: tally((r) => r.os ?? UNKNOWN),
      referrer: tally((r) => referrerHost(r.referrer)),
    },
    days: tally((r) => r.timestamp.slice(0, 10)).sort((a, b) => (a.name < b.name ? -1 : 1)).map((d) => ({ day: d.name, count: d.count })),
    unique: visitors.size,
    bots: rows.filter((r) => Number(r.is_bot)).length,
    returning: views.filter((v) => v.metadata.visitNumber > 1).length,
    last: rows.reduce<string | null>((m, r) => (m === null || r.timestamp > m ? r.timestamp : m), null),
  };
}

/** Every figure of the report equals the raw-row answer (all clicks kept: no throttle, no retention). */
async function expectReportMatchesRows(db: Database, link: LinkRow) {
  const raw = await rawAnswer(db, link.id);
  const report = await analyticsReports(db).report(link, "https://t.example/x", { days: "7", pageSize: "100" });
  expect(report.clickCount).toBe(raw.rows.length);
  for (const [dim, want] of Object.entries(raw.tallies)) expect({ dim, t: report.tallies[dim as keyof typeof report.tallies] }).toEqual({ dim, t: want.slice(0, 10) });
  expect(await analyticsStore(db).days(link.id, "0000")).toEqual(raw.days);
  expect(report.timeline.series.reduce((k, d) => k + d.count, 0)).toBe(raw.rows.filter((r) => r.timestamp.slice(0, 10) >= report.timeline.series[0]!.day).length);
  expect(report.uniqueVisitors).toBe(raw.unique);
  expect(report.visits).toEqual({ new: raw.rows.length - raw.returning, returning: raw.returning, bots: raw.bots });
  expect(report.lastClick).toBe(raw.last);
  expect(report.detail.rows).toBe(raw.rows.length);
  expect(report.detail.withoutDetail).toBe(0);
  expect(report.detail.since).toBe(raw.rows[0]?.timestamp ?? null);
  // Stored visit numbers are the visitor's clicks so far.
  expect(raw.rows.map((r) => toClickView(r).metadata.visitNumber)).toEqual(raw.visitNumbers);
  // Click pages (keyset) and the CSV: every row once, newest first.
  const paged: number[] = [];
  for (let before: string | undefined; ; ) {
    const p = await analyticsReports(db).report(link, "https://t.example/x", { pageSize: "7", ...(before ? { before } : {}) });
    paged.push(...p.clicks.map((c) => c.id));
    if (p.nextBefore === null) break;
    before = String(p.nextBefore);
  }
  expect(paged).toEqual(raw.rows.map((r) => r.id).reverse());
  const csv = (await new Response(download(db, { kind: "clicks", linkId: link.id })).text()).trim().split("\r\n").slice(1);
  expect(csv.map((line) => line.split(",")[0])).toEqual(raw.rows.map((r) => r.timestamp).reverse());
  expect(csv.map((line) => Number(line.split(",")[8]))).toEqual([...raw.visitNumbers].reverse());
  return report;
}

test("every figure of a report equals the raw rows' answer: across transactions, folds, a reset and another link's deletion", async () => {
  const f = await clickFixture();
  const r = f.recorder({ foldEvery: 9, detailPerMinute: Number.POSITIVE_INFINITY });
  try {
    const owner = await f.user("roll");
    const a = await f.make(owner, "rolla", "brand");
    const b = await f.make(owner, "rollb", "brand");
    const c = await f.make(owner, "rollc", "brand");
    const batches = [clicksFor(a.id, 40, 0), clicksFor(b.id, 25, 3), clicksFor(a.id, 31, 7), clicksFor(c.id, 12, 1)];
    for (const batch of batches) {
      for (const click of batch) r.capture(click);
      expect(await r.flush()).toBe(true);
    }
    const get = async (id: number) => (await f.links.get(id, owner, "brand"))!;
    const before = await expectReportMatchesRows(f.db, await get(a.id));
    expect(before.clickCount).toBe(71);
    await expectReportMatchesRows(f.db, await get(b.id));
    // Another link deleted: a's figures unchanged.
    await f.links.delete(c.id, owner, "brand");
    await expectReportMatchesRows(f.db, await get(a.id));
    // A reset: b starts from nothing, and new clicks roll up afresh.
    await f.links.resetClicks(b.id);
    const empty = await expectReportMatchesRows(f.db, await get(b.id));
    expect(empty.uniqueVisitors).toBe(0);
    expect(empty.lastClick).toBeNull();
    for (const click of clicksFor(b.id, 10, 5)) r.capture(click);
    expect(await r.flush()).toBe(true);
    const after = await expectReportMatchesRows(f.db, await get(b.id));
    expect(after.clickCount).toBe(10);
  } finally {
    await f.done();
  }
}, 30_000);

test("the one-time backfill tallies clicks stored before roll-ups were written, once, beside new clicks", async () => {
  const f = await clickFixture();
  const first = f.recorder({ foldEvery: 7, detailPerMinute: Number.POSITIVE_INFINITY });
  try {
    const owner = await f.user("back");
    const a = await f.make(owner, "backa", "brand");
    for (const click of clicksFor(a.id, 60, 2)) first.capture(click);
    await first.stop();
    // As a database from before migration 0012 is: an older on-read roll-up covered the first 20
    // clicks of a (its mark), the rest are untallied, and the backfill has everything ahead.
    const ids = (await f.db.all<{ id: number }>("SELECT id FROM link_analytics WHERE link_id = ? ORDER BY id", a.id)).map((x) => x.id);
    const maxId = ids[ids.length - 1]!;
    await f.db.run("DELETE FROM link_rollups WHERE link_id = ?", a.id);
    const old = await rawAnswer(f.db, a.id);
    const oldest = old.rows.slice(0, 20);
    const tallies: [string, string, number][] = [];
    const add = (dim: string, value: string) => {
      const t = tallies.find((x) => x[0] === dim && x[1] === value);
      if (t) t[2]++;
      else tallies.push([dim, value, 1]);
    };
    for (const row of oldest) {
      add("country", row.country ?? UNKNOWN);
      add("city", row.city ?? UNKNOWN);
      add("browser", row.browser ?? UNKNOWN);
      add("device", row.device_type ?? UNKNOWN);
      add("os", row.os ?? UNKNOWN);
      add("referrer", referrerHost(row.referrer));
      add("day", row.timestamp.slice(0, 10));
      if (!Number(row.is_bot) && row.visitor_id) add("visitor", row.visitor_id);
    }
    add("summary", "mark_id");
    tallies[tallies.length - 1]![2] = ids[19]!;
    tallies.push(["summary", "unique", tallies.filter((t) => t[0] === "visitor").length]);
    for (const [dim, value, count] of tallies) await f.db.run("INSERT INTO link_rollups (link_id, dim, value, count) VALUES (?, ?, ?, ?)", a.id, dim, value, count);
    await f.db.run("UPDATE click_backfill SET upto = ?, done = 0", maxId);
    // A writer started on such a database (as after the upgrade).
    const r = f.recorder({ foldEvery: 7, detailPerMinute: Number.POSITIVE_INFINITY });
    // New clicks while the backfill waits: tallied by the writer, never twice.
    for (const click of clicksFor(a.id, 15, 9, Date.now() - DAY)) r.capture(click);
    expect(await r.flush()).toBe(true);
    expect(await r.maintain()).toBe(true);
    expect(await f.db.get<{ upto: number; done: number }>("SELECT upto, done FROM click_backfill")).toEqual({ upto: maxId, done: maxId });
    await expectReportMatchesRows(f.db, (await f.links.get(a.id, owner, "brand"))!);
  } finally {
    await f.done();
  }
}, 30_000);

test("retention deletes old click rows in batches while totals, tallies and visit numbers stay exact", async () => {
  const f = await clickFixture();
  // Clicks first with a writer that keeps them all; then one with retention (whose first run
  // could otherwise start before the full report below is read).
  const keeper = f.recorder({ detailPerMinute: Number.POSITIVE_INFINITY });
  try {
    const owner = await f.user("keep");
    const a = await f.make(owner, "keepa", "brand");
    let r = keeper;
    // 1,500 clicks 10 days ago (more than one retention batch), 30 in the last day.
    const old = clicksFor(a.id, 1_500, 0, Date.now() - 10 * DAY).map((c, i) => ({ ...c, at: Date.now() - 10 * DAY + i }));
    for (const click of old) r.capture(click);
    expect(await r.flush()).toBe(true);
    for (const click of clicksFor(a.id, 30, 4, Date.now() - DAY / 2).map((c, i) => ({ ...c, at: Date.now() - DAY / 2 + i * 1000 }))) r.capture(click);
    expect(await r.flush()).toBe(true);
    const link = async () => (await f.links.get(a.id, owner, "brand"))!;
    const full = await expectReportMatchesRows(f.db, await link());
    await keeper.stop();
    r = f.recorder({ retentionDays: 3, detailPerMinute: Number.POSITIVE_INFINITY });
    expect(await r.maintain()).toBe(true);
    expect(await f.rows(a.id)).toBe(30);
    const after = await analyticsReports(f.db, { retentionDays: 3 }).report(await link(), "https://t.example/x", { days: "7", pageSize: "100" });
    // Totals and tallies from the roll-ups: unchanged.
    expect(after.clickCount).toBe(1_530);
    expect(after.tallies).toEqual(full.tallies);
    expect(after.uniqueVisitors).toBe(full.uniqueVisitors);
    expect(after.visits).toEqual(full.visits);
    expect(after.lastClick).toBe(full.lastClick);
    // The detail says what it covers.
    expect(after.detail.rows).toBe(30);
    expect(after.detail.retentionDays).toBe(3);
    expect(Date.parse(after.detail.since!)).toBeGreaterThan(Date.now() - 3 * DAY);
    expect(after.clicks).toHaveLength(30);
    if (f.db.dialect === "sqlite") expect(await f.n("SELECT COUNT(*) AS n FROM link_clicks WHERE link_id = ?", a.id)).toBeLessThanOrEqual(30);
    // A returning visitor's next visit counts the clicks retention deleted.
    const vid = "v-1";
    const wasHuman = await f.n("SELECT count AS n FROM link_rollups WHERE link_id = ? AND dim = 'visitor' AND value = ?", a.id, vid);
    r.capture({ ...clicksFor(a.id, 1, 0)[0]!, visitorId: vid, userAgent: AGENTS[0]!, at: Date.now() });
    expect(await r.flush()).toBe(true);
    const newest = (await analyticsReports(f.db).report(await link(), "x", {})).clicks[0]!;
    expect(newest.metadata.visitNumber).toBe(wasHuman + 1);
  } finally {
    await f.done();
  }
}, 60_000);

test("one source past the detail limit: every click counted and tallied, detail rows kept up to the limit a minute", async () => {
  const f = await clickFixture();
  const r = f.recorder({ detailPerMinute: 5 });
  try {
    const owner = await f.user("flood");
    const a = await f.make(owner, "flooda", "brand");
    const minute = Math.floor(Date.now() / 60_000) * 60_000 - 120_000;
    // 40 clicks in one minute from one address; 3 from another; then 2 more the next minute.
    for (let i = 0; i < 40; i++) r.capture(f.click(a.id, "flooder", false, { at: minute + i * 100, ip: "203.0.113.9" }));
    for (let i = 0; i < 3; i++) r.capture(f.click(a.id, `calm-${i}`, true, { at: minute + 5_000 + i, ip: "198.51.100.1" }));
    for (let i = 0; i < 2; i++) r.capture(f.click(a.id, "flooder", false, { at: minute + 60_000 + i, ip: "203.0.113.9" }));
    expect(await r.flush()).toBe(true);
    expect(await f.count(a.id)).toBe(45);
    expect(await f.rows(a.id)).toBe(5 + 3 + 2);
    const report = await analyticsReports(f.db, { detailPerMinute: 5 }).report((await f.links.get(a.id, owner, "brand"))!, "x", { pageSize: "100" });
    expect(report.clickCount).toBe(45);
    expect(report.tallies.browser).toEqual([{ name: "Firefox", count: 45 }]);
    expect(report.timeline.series.reduce((k, d) => k + d.count, 0)).toBe(45);
    expect(report.detail).toMatchObject({ rows: 10, withoutDetail: 35, perSourcePerMinute: 5 });
    expect(report.uniqueVisitors).toBe(4);
    // The flooder's next minute: visits 41 and 42, counted through the ones without a row.
    const flooder = report.clicks.filter((c) => c.metadata.visitNumber > 1).map((c) => c.metadata.visitNumber);
    expect(flooder.slice(0, 2)).toEqual([42, 41]);
  } finally {
    await f.done();
  }
}, 30_000);

test("an IPv6 source past the detail limit is its /64: addresses of one network share the limit, another network has its own", async () => {
  const f = await clickFixture();
  const r = f.recorder({ detailPerMinute: 5 });
  try {
    const owner = await f.user("flood6");
    const a = await f.make(owner, "flood6a", "brand");
    const minute = Math.floor(Date.now() / 60_000) * 60_000 - 120_000;
    // One client holding 2001:db8:1:2::/64 (a subscriber's usual share) sends each click from a
    // new address of it, written in the forms an address can take; a neighbour /64 sends 3.
    for (let i = 0; i < 40; i++) r.capture(f.click(a.id, null, false, { at: minute + i * 100, ip: i % 2 ? `2001:db8:1:2::${(i + 1).toString(16)}` : `2001:0db8:0001:0002:${i}:0:0:1` }));
    for (let i = 0; i < 3; i++) r.capture(f.click(a.id, null, false, { at: minute + 5_000 + i, ip: `2001:db8:1:3::${i + 1}` }));
    expect(await r.flush()).toBe(true);
    expect(await f.count(a.id)).toBe(43);
    expect(await f.rows(a.id)).toBe(5 + 3);
    const report = await analyticsReports(f.db, { detailPerMinute: 5 }).report((await f.links.get(a.id, owner, "brand"))!, "x", { pageSize: "100" });
    expect(report.detail).toMatchObject({ rows: 8, withoutDetail: 35, perSourcePerMinute: 5 });
  } finally {
    await f.done();
  }
}, 30_000);

test("user agents and referrers are stored at most 512 characters long; the agent is parsed whole", async () => {
  const f = await clickFixture();
  const r = f.recorder();
  try {
    const owner = await f.user("long");
    const a = await f.make(owner, "longa", "brand");
    const ua = `${AGENTS[0]} ${"x".repeat(2_000)}`;
    const referrer = `https://long.example/${"y".repeat(3_000)}`;
    r.capture(f.click(a.id, "v", true, { userAgent: ua, referrer }));
    expect(await r.flush()).toBe(true);
    const row = (await f.db.get<{ user_agent: string; referrer: string; browser: string }>("SELECT user_agent, referrer, browser FROM link_analytics WHERE link_id = ?", a.id))!;
    expect(row.user_agent).toBe(ua.slice(0, DETAIL_TEXT_MAX));
    expect(row.referrer).toBe(referrer.slice(0, DETAIL_TEXT_MAX));
    expect(row.browser).toBe("Firefox");
    expect(await analyticsStore(f.db).top(a.id, "referrer")).toEqual([{ name: "long.example", count: 1 }]);
  } finally {
    await f.done();
  }
});
