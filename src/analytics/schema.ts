// The analytics API's response shapes, shared with the web app (which may import only
// schema.ts files and src/shared/ from the server).
import * as v from "valibot";
import { QueryInt, QueryIntOf } from "../shared/query";
import { isRangeBound, isTimeZone } from "../shared/time";

const SERIES_ZONE_MSG = "tz must be an IANA time zone such as Europe/Berlin or UTC";

/** The series' intervals: one point per local day, or per hour. */
export const SERIES_INTERVALS = ["day", "hour"] as const;

/** The dimensions the report tallies, in the order the dialog shows them. */
export const DIMENSIONS = ["country", "city", "browser", "device", "os", "referrer"] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** One row of a tally: a value and how many clicks had it. */
export const Tally = v.object({ name: v.string(), count: v.number() });
export type Tally = v.InferOutput<typeof Tally>;

/** One click as the paged Click Details list shows it. */
export const ClickView = v.object({
  id: v.number(),
  timestamp: v.string(),
  browser: v.nullable(v.string()),
  deviceType: v.nullable(v.string()),
  os: v.nullable(v.string()),
  userAgent: v.nullable(v.string()),
  country: v.nullable(v.string()),
  city: v.nullable(v.string()),
  referrer: v.nullable(v.string()),
  metadata: v.object({ isReturningVisitor: v.boolean(), visitNumber: v.number(), source: v.string(), isBot: v.boolean() }),
});
export type ClickView = v.InferOutput<typeof ClickView>;

/** The analytics response (spec §3 'Analytics response shape' plus tallies, a daily series and a paged click list). */
export const AnalyticsReport = v.object({
  link: v.object({
    id: v.number(),
    shortCode: v.string(),
    shortUrl: v.string(),
    originalUrl: v.string(),
    title: v.string(),
    createdAt: v.string(),
    expiresAt: v.nullable(v.string()),
  }),
  clickCount: v.number(),
  uniqueVisitors: v.number(),
  lastClick: v.nullable(v.string()),
  tallies: v.object(Object.fromEntries(DIMENSIONS.map((d) => [d, v.array(Tally)])) as Record<Dimension, v.ArraySchema<typeof Tally, undefined>>),
  timeline: v.object({ days: v.number(), series: v.array(v.object({ day: v.string(), count: v.number() })) }),
  series: v.object({
    interval: v.picklist(SERIES_INTERVALS),
    tz: v.string(),
    from: v.string(),
    to: v.string(),
    total: v.number(),
    points: v.array(v.object({ start: v.string(), count: v.number() })),
  }),
  page: v.number(),
  pageSize: v.number(),
  clicks: v.array(ClickView),
  /** The id to pass as `before` for the next (older) page; null on the last one. */
  nextBefore: v.pipe(v.nullable(v.number()), v.description("Pass as `before` for the next, older page of clicks; null on the last page.")),
  /** Clicks by visit number (counted clicks whose visitor was known), and bots among all. */
  visits: v.object({ new: v.number(), returning: v.number(), bots: v.number() }),
  /**
   * A smart link's (issue 24): clicks per rule or split destination (route "rule:<id>" or
   * "variant:<id>", by the rule's stable id, named by its place and name in the settings now, or
   * "Removed rule (id N)"; "Default destination", "Fallback URL"), and its password page's views and unlocks, which
   * are not clicks. Null for a plain link that never had settings.
   */
  smart: v.nullable(
    v.object({
      routes: v.array(v.object({ route: v.string(), name: v.string(), count: v.number() })),
      passwordViews: v.number(),
      unlocks: v.number(),
    }),
  ),
  /**
   * What the click detail covers: the rows stored now, the oldest one's time, the retention
   * setting, and the clicks counted (in every figure above) without a detail row.
   */
  detail: v.pipe(
    v.object({
      rows: v.number(),
      since: v.nullable(v.string()),
      retentionDays: v.nullable(v.number()),
      withoutDetail: v.number(),
      perSourcePerMinute: v.nullable(v.number()),
    }),
    v.description(
      "Which clicks have detail rows: `rows` stored, the oldest at `since`; rows older than `retentionDays` (null: kept forever) are deleted; `withoutDetail` clicks were counted in every figure but keep no row (past `perSourcePerMinute` from one address on this link, null when unlimited; or the click writer overloaded).",
    ),
  ),
});
export type AnalyticsReport = v.InferOutput<typeof AnalyticsReport>;

/** Click detail rows a page holds by default and at most (README "Click analytics"). */
export const PAGE_SIZE_DEFAULT = 25;
export const PAGE_SIZE_MAX = 100;
/** The daily timeline's lengths (the dialog's choices). */
export const RANGE_DAYS = [7, 30, 90] as const;
/** A page number's ceiling: with `before` the number is only echoed back (the dialog counts pages). */
export const PAGE_MAX = 1_000_000;


const rangeBound = (name: "from" | "to", about: string) => {
  const message = `${name} must be a date (YYYY-MM-DD) or a date-time with an offset (2026-03-01T09:00:00+01:00)`;
  return v.optional(
    v.pipe(
      v.string(message),
      v.maxLength(40, message),
      v.check(isRangeBound, message),
      // Either form, as the document states it (a client generator picks string either way).
      v.metadata({ anyOf: [{ format: "date" }, { format: "date-time" }] }),
      v.description(about),
    ),
  );
};

/**
 * GET …/analytics: which page of clicks, how many per page, and the range, zone and interval of
 * the series. Each value is checked here (a 400 naming the parameter, never a silent default);
 * rules across parameters (from before to, the range's length) are the report's (series.ts).
 */
export const AnalyticsQuery = v.object({
  page: QueryInt("page", 1, PAGE_MAX, 1, "Page number of the click list, from 1 (default 1). Without `before`, pages reach 1,000 clicks deep only (400 past that)."),
  before: QueryInt("before", 1, Number.MAX_SAFE_INTEGER, undefined, "Keyset cursor: the clicks older than this click id (a page's `nextBefore`)."),
  pageSize: QueryInt("pageSize", 1, PAGE_SIZE_MAX, PAGE_SIZE_DEFAULT, `Clicks per page, 1 to ${PAGE_SIZE_MAX} (default ${PAGE_SIZE_DEFAULT}).`),
  days: QueryIntOf("days", RANGE_DAYS, 30, "Days of the daily `timeline`, and of `series` when `from` is absent: 7, 30 or 90 (default 30). Not with `from`/`to`."),
  from: rangeBound(
    "from",
    "Start of the series' range: a date (the start of that day in `tz`) or an RFC 3339 date-time with an offset. Rounded down to a whole UTC hour. Without it, the series covers the last `days` days in `tz`.",
  ),
  to: rangeBound("to", "End of the series' range, exclusive: a date (the whole day is included: up to the next day's start in `tz`) or an RFC 3339 date-time. Rounded up to a whole UTC hour. Default now; needs `from`."),
  tz: v.optional(
    v.pipe(
      v.string(SERIES_ZONE_MSG),
      v.check(isTimeZone, SERIES_ZONE_MSG),
      v.metadata({ examples: ["Europe/Berlin", "America/New_York", "UTC"] }),
      v.description("IANA time zone the series' days, dates and labels are in (default UTC)."),
    ),
  ),
  interval: v.optional(
    v.pipe(
      v.picklist(SERIES_INTERVALS, "interval must be day or hour"),
      v.description("One point per local day (`day`, default; a range of at most 366 days) or per hour (`hour`; at most 31 days)."),
    ),
  ),
});
