// The analytics API's response shapes, shared with the web app (which may import only
// schema.ts files and src/shared/ from the server).
import * as v from "valibot";

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
  page: v.number(),
  pageSize: v.number(),
  clicks: v.array(ClickView),
  /** The id to pass as `before` for the next (older) page; null on the last one. */
  nextBefore: v.pipe(v.nullable(v.number()), v.description("Pass as `before` for the next, older page of clicks; null on the last page.")),
  /** Clicks by visit number (counted clicks whose visitor was known), and bots among all. */
  visits: v.object({ new: v.number(), returning: v.number(), bots: v.number() }),
  /**
   * A smart link's (issue 24): clicks per rule or split destination (named as in its settings;
   * "Default destination", "Fallback URL"), and its password page's views and unlocks, which
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

/** GET …/analytics: which page of clicks, how many per page, and how many days of timeline. */
export const AnalyticsQuery = v.object({
  page: v.optional(v.pipe(v.string(), v.description("Page number of the click list, from 1 (default 1). Without `before`, pages up to 1,000 clicks deep only."))),
  before: v.optional(v.pipe(v.string(), v.description("Keyset cursor: the clicks older than this click id (a page's `nextBefore`)."))),
  pageSize: v.optional(v.pipe(v.string(), v.description("Clicks per page, 1 to 100 (default 25)."))),
  days: v.optional(v.pipe(v.string(), v.description("Days of timeline: 7, 30 or 90 (default 30)."))),
});
