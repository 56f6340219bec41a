// The analytics timeseries (issue 23): clicks per day or per hour over a date range, in a time
// zone. Read from the roll-ups alone (tallies.ts 'hour' and 'day' rows; one index range each,
// at most 768 + 33 rows a report), never from click rows, so a 10M-click link costs what any
// link costs and nothing here scales with clicks.
//
// The roll-ups count per UTC hour. A zone whose offset is a whole number of hours (most, DST
// included) gets exact local hours and days. A zone offset by a fraction of an hour (Asia/Kolkata
// +05:30, Asia/Kathmandu +05:45) gets hourly points at its UTC hours (labelled in local time,
// 10:30, 11:30…) and days whose edges may be off by that fraction: a UTC hour is counted in the
// local day its start falls in. Clicks tallied before the 'hour' roll-up existed have only their
// UTC day: they are counted at that day's 12:00 UTC, so a series' total always equals the days'.
import { badRequest } from "../shared/errors";
import { DATE_ONLY, offsetAt } from "../shared/time";
import type { SERIES_INTERVALS } from "./schema";

type Interval = (typeof SERIES_INTERVALS)[number];

/** Longest range per interval: a year of days, a month of hours (744 points). */
export const MAX_RANGE_DAYS: Record<Interval, number> = { day: 366, hour: 31 };

const HOUR = 3_600_000;
const DAY = 86_400_000;

export const SERIES_MSG = {
  order: "from must be before to",
  range: (interval: Interval) => `A range by ${interval} covers at most ${MAX_RANGE_DAYS[interval]} days`,
  daysWithRange: "Send days or from/to, not both",
  toWithoutFrom: "to needs from",
} as const;

/** The instant a local wall-clock time (given as if it were UTC ms) happens in `tz`. */
export function fromLocal(tz: string, localMs: number) {
  // Two passes settle on the offset in force at that time; a time skipped by DST resolves later.
  const first = localMs - offsetAt(tz, localMs);
  return localMs - offsetAt(tz, first);
}

/** `ms` as local time at the offset `off` (ms), RFC 3339 with its offset: 2026-03-29T00:00:00+01:00. */
function isoAt(ms: number, off: number) {
  const abs = Math.abs(off) / 60_000;
  const sign = off < 0 ? "-" : "+";
  const zone = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
  return `${new Date(ms + off).toISOString().slice(0, 19)}${zone}`;
}

/**
 * The zone's offset at an instant, asking Intl about spans rather than every hour: a year by
 * day is 8,784 hours, and Intl's formatToParts took ~400 ms for them on this machine (the request
 * thread). A span whose two ends agree has no change inside it (changes are months apart): 8
 * days at a time, then the day, then the hour around a change.
 */
function zoneOffsets(tz: string) {
  if (tz === "UTC" || tz === "Etc/UTC") return () => 0;
  const spans = new Map<number, number | null>();
  const constant = (start: number, length: number) => {
    let off = spans.get(start + length);
    if (off === undefined) {
      const a = offsetAt(tz, start);
      off = a === offsetAt(tz, start + length - 1000) ? a : null;
      spans.set(start + length, off);
    }
    return off;
  };
  const BLOCK = 8 * DAY;
  return (ms: number) => constant(Math.floor(ms / BLOCK) * BLOCK, BLOCK) ?? constant(Math.floor(ms / DAY) * DAY, DAY) ?? offsetAt(tz, ms);
}

/** A bound as an instant: a date is the start of that local day in `tz` (`end`: of the next). */
function boundMs(s: string, tz: string, end: boolean) {
  const d = DATE_ONLY.exec(s);
  if (!d) return Date.parse(s);
  return fromLocal(tz, Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]) + (end ? 1 : 0)));
}

/** The local day (as UTC-midnight ms of its calendar date) that the instant `ms` falls in. */
const localDay = (tz: string, ms: number) => Math.floor((ms + offsetAt(tz, ms)) / DAY) * DAY;

export type SeriesQuery = { from?: string; to?: string; tz?: string; interval?: string; days?: string };

/**
 * fromMs/toMs: the range read, whole UTC hours; firstDay/lastDay: the local days it covers as
 * asked (before rounding out, which in a zone offset by a fraction of an hour could touch one
 * more), as the UTC-midnight ms of their calendar dates.
 */
export type SeriesRange = { interval: Interval; tz: string; fromMs: number; toMs: number; firstDay: number; lastDay: number };

/**
 * The range a report's series covers: [from, to) rounded out to whole UTC hours (what the
 * roll-ups count). Without from: the last `days` local days, today included. `to` defaults to
 * now (the end of today for a date range). Refuses an empty, reversed or too long range.
 */
export function seriesRange(q: SeriesQuery, days: number, now = Date.now()): SeriesRange {
  const tz = q.tz ?? "UTC";
  const interval = (q.interval ?? "day") as Interval;
  if (q.days !== undefined && (q.from !== undefined || q.to !== undefined)) throw badRequest(SERIES_MSG.daysWithRange, { days: SERIES_MSG.daysWithRange });
  if (q.to !== undefined && q.from === undefined) throw badRequest(SERIES_MSG.toWithoutFrom, { from: SERIES_MSG.toWithoutFrom });
  let fromMs: number;
  let toMs: number;
  if (q.from === undefined) {
    const today = localDay(tz, now);
    toMs = fromLocal(tz, today + DAY);
    fromMs = fromLocal(tz, today - (days - 1) * DAY);
  } else {
    fromMs = boundMs(q.from, tz, false);
    toMs = q.to === undefined ? now : boundMs(q.to, tz, true);
  }
  if (toMs <= fromMs) throw badRequest(SERIES_MSG.order, { to: SERIES_MSG.order });
  // The limit counts the local days the range touches (a DST day of 25 hours is one day).
  const firstDay = localDay(tz, fromMs);
  const lastDay = localDay(tz, toMs - 1);
  if ((lastDay - firstDay) / DAY + 1 > MAX_RANGE_DAYS[interval]) throw badRequest(SERIES_MSG.range(interval), { [q.from === undefined ? "days" : "to"]: SERIES_MSG.range(interval) });
  return { interval, tz, fromMs: Math.floor(fromMs / HOUR) * HOUR, toMs: Math.ceil(toMs / HOUR) * HOUR, firstDay, lastDay };
}

/** The roll-up keys a range reads: whole UTC days around it, so a day's untimed clicks are known. */
export function rollupKeys(r: SeriesRange) {
  const firstDay = Math.floor(r.fromMs / DAY) * DAY;
  const endDay = Math.ceil(r.toMs / DAY) * DAY;
  const iso = (ms: number) => new Date(ms).toISOString();
  return { dayFrom: iso(firstDay).slice(0, 10), dayTo: iso(endDay - DAY).slice(0, 10), hourFrom: iso(firstDay).slice(0, 13), hourTo: iso(endDay - HOUR).slice(0, 13) };
}

export type SeriesPoint = { start: string; count: number };

/** "YYYY-MM-DDTHH" (a roll-up's hour) as ms: by hand, Date.parse took ~4 µs a row. */
const hourMs = (v: string) => Date.UTC(+v.slice(0, 4), +v.slice(5, 7) - 1, +v.slice(8, 10), +v.slice(11, 13));

/**
 * The points of a range, zero-filled, from the roll-up rows read with rollupKeys: `hours`
 * (YYYY-MM-DDTHH → clicks) and `days` (YYYY-MM-DD → clicks, every click of that UTC day).
 */
export function seriesPoints(r: SeriesRange, hours: { value: string; count: number }[], days: { value: string; count: number }[]): SeriesPoint[] {
  const perHour = new Map<number, number>();
  const timedPerDay = new Map<string, number>();
  for (const h of hours) {
    const ms = hourMs(h.value);
    const n = Number(h.count);
    perHour.set(ms, (perHour.get(ms) ?? 0) + n);
    const day = h.value.slice(0, 10);
    timedPerDay.set(day, (timedPerDay.get(day) ?? 0) + n);
  }
  // A day's clicks without an hour (tallied before the hour roll-up): at its 12:00 UTC.
  for (const d of days) {
    const untimed = Number(d.count) - (timedPerDay.get(d.value) ?? 0);
    if (untimed <= 0) continue;
    const noon = hourMs(`${d.value}T12`);
    perHour.set(noon, (perHour.get(noon) ?? 0) + untimed);
  }
  const off = zoneOffsets(r.tz);
  const points: SeriesPoint[] = [];
  if (r.interval === "hour") {
    for (let h = r.fromMs; h < r.toMs; h += HOUR) points.push({ start: isoAt(h, off(h)), count: perHour.get(h) ?? 0 });
    return points;
  }
  // By local day: each UTC hour counts in the local day its start falls in.
  const byDay = new Map<number, number>();
  for (const [h, n] of perHour) {
    if (h < r.fromMs || h >= r.toMs) continue;
    const d = Math.floor((h + off(h)) / DAY) * DAY;
    byDay.set(d, (byDay.get(d) ?? 0) + n);
  }
  for (let d = r.firstDay; d <= r.lastDay; d += DAY) {
    // Local midnight as an instant (fromLocal's two passes, on the cached offsets).
    const start = Math.max(r.fromMs, d - off(d - off(d)));
    points.push({ start: isoAt(start, off(start)), count: byDay.get(d) ?? 0 });
  }
  return points;
}
