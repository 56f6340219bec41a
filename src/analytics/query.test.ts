// The analytics query (issue 23): every parameter refused with a 400 naming it instead of a
// silent default, and the timeseries by day or hour over a date range in a time zone, read from
// the roll-ups. Through the real app on the test backend (SQLite, or TEST_BACKEND=postgres).
import { describe, expect, test } from "bun:test";
import { setup } from "../test/helpers";
import { seriesPoints, seriesRange } from "./series";

const t = await setup({ CLICK_DETAIL_PER_MINUTE: "0" });
const alice = await t.signUp("series-alice");
const bob = await t.signUp("series-bob");

const made = await t.call("POST", "/api/links", { cookie: alice.cookie, body: { originalUrl: "https://example.com/series", title: "Series", shortCode: "series-one" } });
const link = made.json as { id: number };
const api = (q: string, cookie = alice.cookie) => t.call("GET", `/api/links/${link.id}/analytics${q}`, { cookie });

// Three clicks now: they land in the current UTC hour and day.
for (let i = 0; i < 3; i++) await t.call("GET", "/series-one", { headers: { "user-agent": `series test ${i}` } });
await t.settle();
const now = new Date();
const thisHour = `${now.toISOString().slice(0, 13)}:00:00`;

describe("parameters are validated, never coerced", () => {
  const bad: [string, string, RegExp][] = [
    ["?pageSize=1000", "pageSize", /pageSize must be a whole number from 1 to 100/],
    ["?pageSize=0", "pageSize", /from 1 to 100/],
    ["?pageSize=2.5", "pageSize", /whole number/],
    ["?page=abc", "page", /page must be a whole number/],
    ["?page=0", "page", /page must be a whole number/],
    ["?page=-1", "page", /page must be a whole number/],
    ["?days=8", "days", /days must be one of 7, 30, 90/],
    ["?days=7d", "days", /days must be one of 7, 30, 90/],
    ["?days=", "days", /days must be one of/],
    ["?before=abc", "before", /before must be a whole number/],
    ["?before=1e5", "before", /before must be a whole number/],
    [`?before=${"9".repeat(40)}`, "before", /before must be a whole number/],
    ["?tz=Mars/Olympus", "tz", /IANA time zone/],
    [`?tz=${"A".repeat(300)}`, "tz", /IANA time zone/],
    ["?interval=week", "interval", /interval must be day or hour/],
    ["?from=yesterday", "from", /from must be a date/],
    ["?from=2026-02-30", "from", /from must be a date/],
    ["?from=2026-03-01T09:00:00", "from", /with an offset/],
    ["?from=2026-03-01&to=13/03/2026", "to", /to must be a date/],
    ["?to=2026-03-01", "from", /to needs from/],
    ["?from=2026-03-02&to=2026-03-01", "to", /from must be before to/],
    ["?from=2025-01-01&to=2026-06-01", "to", /by day covers at most 366 days/],
    ["?from=2026-01-01&to=2026-03-01&interval=hour", "to", /by hour covers at most 31 days/],
    ["?days=90&interval=hour", "days", /by hour covers at most 31 days/],
    ["?days=7&from=2026-01-01", "days", /days or from\/to, not both/],
    ["?page=11&pageSize=100", "page", /deeper than 1000 clicks/],
  ];
  for (const [q, field, message] of bad) {
    test(`${q} → 400 naming ${field}`, async () => {
      const r = await api(q);
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe("VALIDATION");
      expect(r.json.error.message).toMatch(message);
      expect(Object.keys(r.json.error.fields ?? {})).toEqual([field]);
    });
  }

  test("the limits themselves are accepted", async () => {
    for (const q of ["?pageSize=100", "?pageSize=1", "?days=7", "?days=90", "?page=10&pageSize=100", "?tz=UTC", "?tz=Asia/Kathmandu&interval=hour"]) {
      expect((await api(q)).status, q).toBe(200);
    }
  });

  test("someone else's link is 404 whatever the query, and nothing is read for them", async () => {
    expect((await api("?interval=hour&tz=Europe/Berlin", bob.cookie)).status).toBe(404);
    expect((await api("", bob.cookie)).json.error.code).toBe("NOT_FOUND");
  });
});

describe("the timeseries", () => {
  test("by default: the last 30 days in UTC, one point a day, today's clicks in today's point", async () => {
    const r = await api("");
    expect(r.status).toBe(200);
    const s = r.json.series;
    expect(s).toMatchObject({ interval: "day", tz: "UTC", total: 3 });
    expect(s.points).toHaveLength(30);
    expect(s.points.at(-1)).toEqual({ start: `${now.toISOString().slice(0, 10)}T00:00:00+00:00`, count: 3 });
    // The legacy daily timeline is unchanged beside it.
    expect(r.json.timeline.series.at(-1)).toEqual({ day: now.toISOString().slice(0, 10), count: 3 });
  });

  test("by hour over a date-time range: the clicks sit in the current UTC hour, every other hour is 0", async () => {
    const from = new Date(Date.parse(`${thisHour}Z`) - 5 * 3_600_000).toISOString();
    const to = new Date(Date.parse(`${thisHour}Z`) + 3 * 3_600_000).toISOString();
    const r = await api(`?interval=hour&from=${from}&to=${to}`);
    expect(r.status).toBe(200);
    expect(r.json.series.points).toHaveLength(8);
    expect(r.json.series.points.map((p: { count: number }) => p.count)).toEqual([0, 0, 0, 0, 0, 3, 0, 0]);
    expect(r.json.series.points[5].start).toBe(`${thisHour}+00:00`);
    expect(r.json.series).toMatchObject({ from, to, total: 3 });
  });

  test("in a time zone: labels carry the zone's offset and the clicks keep their hour", async () => {
    const r = await api("?interval=hour&tz=Asia/Kathmandu&days=7");
    expect(r.status).toBe(200);
    const hit = r.json.series.points.filter((p: { count: number }) => p.count > 0);
    expect(hit).toHaveLength(1);
    expect(hit[0].start).toMatch(/\+05:45$/);
    expect(Date.parse(hit[0].start)).toBe(Date.parse(`${thisHour}Z`));
  });

  test("a date range is whole local days, both ends included", async () => {
    const r = await api("?from=2026-03-28&to=2026-03-30&tz=Europe/Berlin");
    expect(r.status).toBe(200);
    expect(r.json.series.points.map((p: { start: string }) => p.start)).toEqual(["2026-03-28T00:00:00+01:00", "2026-03-29T00:00:00+01:00", "2026-03-30T00:00:00+02:00"]);
    // Midnight 28 March in Berlin is 23:00 UTC the day before; the range ends at midnight on the 31st (+02:00).
    expect(r.json.series).toMatchObject({ from: "2026-03-27T23:00:00.000Z", to: "2026-03-30T22:00:00.000Z" });
  });

  test("clicks tallied before the hour roll-up existed count at their UTC day's noon", async () => {
    // A link whose roll-ups are in the older shape: a day row, no hour rows.
    const old = (await t.call("POST", "/api/links", { cookie: alice.cookie, body: { originalUrl: "https://example.com/old", title: "Old", shortCode: "series-old" } })).json;
    await t.database.run("INSERT INTO link_rollups (link_id, dim, value, count) VALUES (?, 'day', '2026-01-10', 5)", old.id);
    const byHour = await t.call("GET", `/api/links/${old.id}/analytics?from=2026-01-10&to=2026-01-10&interval=hour`, { cookie: alice.cookie });
    expect(byHour.json.series.points.filter((p: { count: number }) => p.count)).toEqual([{ start: "2026-01-10T12:00:00+00:00", count: 5 }]);
    // In New York that noon is 07:00 the same day; in Tokyo 21:00 the same day.
    for (const tz of ["America/New_York", "Asia/Tokyo"]) {
      const r = await t.call("GET", `/api/links/${old.id}/analytics?from=2026-01-09&to=2026-01-11&tz=${tz}`, { cookie: alice.cookie });
      expect(r.json.series.points.map((p: { count: number }) => p.count), tz).toEqual([0, 5, 0]);
    }
  });
});

describe("series arithmetic (series.ts)", () => {
  const H = 3_600_000;
  test("a DST day in Europe/Berlin has 23 hours by hour, and one point by day", () => {
    const r = seriesRange({ from: "2026-03-29", to: "2026-03-29", tz: "Europe/Berlin", interval: "hour" }, 30);
    expect((r.toMs - r.fromMs) / H).toBe(23);
    const hours = [{ value: "2026-03-29T00", count: 2 }, { value: "2026-03-29T01", count: 1 }];
    const points = seriesPoints(r, hours, [{ value: "2026-03-29", count: 3 }]);
    expect(points).toHaveLength(23);
    expect(points[1]).toEqual({ start: "2026-03-29T01:00:00+01:00", count: 2 });
    expect(points[2]).toEqual({ start: "2026-03-29T03:00:00+02:00", count: 1 });
    const byDay = seriesPoints({ ...r, interval: "day" }, hours, [{ value: "2026-03-29", count: 3 }]);
    expect(byDay).toEqual([{ start: "2026-03-29T00:00:00+01:00", count: 3 }]);
  });

  test("a date-time range off the hour is rounded out to whole UTC hours", () => {
    const r = seriesRange({ from: "2026-05-01T10:20:00Z", to: "2026-05-01T12:05:00+00:00", interval: "hour" }, 30);
    expect([new Date(r.fromMs).toISOString(), new Date(r.toMs).toISOString()]).toEqual(["2026-05-01T10:00:00.000Z", "2026-05-01T13:00:00.000Z"]);
  });
});
