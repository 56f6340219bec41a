// The roll-up side of a batch of clicks, shared by both click writers (writerStore.ts for
// SQLite, pgWriterStore.ts for PostgreSQL) and the one-time backfill: each click adds one to
// its link's tally of every dimension, and the batch's tallies go to link_rollups in one upsert
// in the transaction that stores its rows (issue 21: no analytics read folds raw rows). No SQL
// here; the per-visitor tallies (visit numbers, unique visitors) need each row's count back and
// stay in the stores.

/** The value a missing country, city, browser, device or OS is tallied under. */
export const UNKNOWN = "Unknown";

/**
 * link_rollups 'summary' values (migrations/0002_links.sql lists the older ones):
 * unique (distinct non-bot visitors), last_ms (newest click, ms since the epoch), bots, new and
 * returning (clicks by visit number), undetailed (clicks counted without a detail row: the
 * per-source throttle or the writer's overload bound), rows (detail rows stored now: retention
 * takes them off).
 */
export type SummaryValue = "unique" | "last_ms" | "bots" | "new" | "returning" | "undetailed" | "rows";

/** The referrer as the tallies show it: its host name, or 'Direct'. */
export function referrerHost(referrer: string | null) {
  if (!referrer) return "Direct";
  try {
    return new URL(referrer).hostname || "Direct";
  } catch {
    return "Direct";
  }
}

/** What a click contributes to its link's tallies. */
export type TalliedClick = {
  linkId: number;
  timestamp: string;
  country: string | null;
  city: string | null;
  browser: string | null;
  deviceType: string | null;
  os: string | null;
  referrer: string | null;
  isBot: boolean;
  /** The visit number given to the click. */
  visitNumber: number;
  /** A detail row is stored for it. */
  detail: boolean;
  /** A smart link's rule or split destination (tallied under 'route'); absent or null for a plain link. */
  route?: string | null;
};

/**
 * The per-value dimensions, in the order a link's tallies hold them. 'day' is the UTC day
 * (YYYY-MM-DD); 'hour' (issue 23) the UTC hour (YYYY-MM-DDTHH), from which a timeseries by hour
 * or by day in any time zone is read (series.ts); 'route' (issue 24) the rule or split destination
 * that sent a smart link's click; 'visitor' and 'botvisitor' a visitor's clicks on the link (the
 * visit numbers: the SQLite writer adds them here, so one upsert writes them with the rest). Clicks
 * tallied before 'hour' existed have a day only: series.ts places them at their UTC day's noon.
 */
const DIMS = ["country", "city", "browser", "device", "os", "referrer", "day", "hour", "route", "visitor", "botvisitor"] as const;
const SUMMARY = ["unique", "bots", "new", "returning", "undetailed", "rows"] as const;

/** One link's share of a batch. */
class LinkTally {
  readonly dims: Map<string, number>[] = DIMS.map(() => new Map());
  readonly summary = new Float64Array(SUMMARY.length);
  last = 0;
}

/**
 * A batch's tallies, per (link, dim, value), ready for one upsert. Kept per link in small maps
 * and written out as JSON text directly: string keys per (link, dim, value) and an array per
 * row cost the writer ~30 µs of CPU a click over 20,000 links (docs/performance.md).
 */
export class Tallies {
  private links = new Map<number, LinkTally>();
  private rowCount = 0;
  // Referrers repeat heavily; URL parsing is the costliest step of a tally.
  private hosts = new Map<string, string>();
  // Clicks of a batch share a handful of timestamps' days.
  private lastTs = "";
  private lastDay = "";
  private lastHour = "";
  private lastMs = 0;

  private link(linkId: number) {
    let t = this.links.get(linkId);
    if (!t) {
      this.links.set(linkId, (t = new LinkTally()));
      this.rowCount++; // its last_ms row
    }
    return t;
  }

  private bump(map: Map<string, number>, value: string, n: number) {
    const had = map.get(value);
    if (had === undefined) this.rowCount++;
    map.set(value, (had ?? 0) + n);
  }

  private sum(t: LinkTally, i: number, n: number) {
    if (t.summary[i] === 0) this.rowCount++;
    t.summary[i]! += n;
  }

  add(linkId: number, dim: string, value: string, n = 1) {
    const t = this.link(linkId);
    if (dim === "summary") {
      const i = (SUMMARY as readonly string[]).indexOf(value);
      if (i < 0) throw new Error(`not a summary count: ${value}`);
      this.sum(t, i, n);
      return;
    }
    const i = (DIMS as readonly string[]).indexOf(dim);
    if (i < 0) throw new Error(`not a dimension: ${dim}`);
    this.bump(t.dims[i]!, value, n);
  }

  /** The newest click of a link (kept as the largest, not added). */
  seen(linkId: number, ms: number) {
    const t = this.link(linkId);
    if (ms > t.last) t.last = ms;
  }

  click(c: TalliedClick) {
    this.dims(c);
    this.summary(c);
  }

  /** The per-value tallies the report's tables and chart read (what the old roll-ups held). */
  dims(c: TalliedClick) {
    const d = this.link(c.linkId).dims;
    this.bump(d[0]!, c.country ?? UNKNOWN, 1);
    this.bump(d[1]!, c.city ?? UNKNOWN, 1);
    this.bump(d[2]!, c.browser ?? UNKNOWN, 1);
    this.bump(d[3]!, c.deviceType ?? UNKNOWN, 1);
    this.bump(d[4]!, c.os ?? UNKNOWN, 1);
    this.bump(d[5]!, this.host(c.referrer), 1);
    this.time(c.timestamp);
    this.bump(d[6]!, this.lastDay, 1);
    this.bump(d[7]!, this.lastHour, 1);
    // Only smart links' clicks carry a route: a plain link gets no 'route' rows at all.
    if (c.route) this.bump(d[8]!, c.route, 1);
  }

  /** The summary counts added with issue 21 (see SummaryValue). */
  summary(c: TalliedClick) {
    const t = this.link(c.linkId);
    if (c.isBot) this.sum(t, 1, 1);
    this.sum(t, c.visitNumber > 1 ? 3 : 2, 1);
    this.sum(t, c.detail ? 5 : 4, 1);
    this.time(c.timestamp);
    if (this.lastMs > t.last) t.last = this.lastMs;
  }

  private time(ts: string) {
    if (ts !== this.lastTs) {
      this.lastTs = ts;
      this.lastDay = ts.slice(0, 10);
      this.lastHour = ts.slice(0, 13);
      this.lastMs = Date.parse(ts);
    }
  }

  /**
   * Clicks counted without anything known of them but their link (the recorder's overload
   * bound, recorder.ts MAX_BACKLOG): their day is the day they reach the writer, seconds after
   * they happened.
   */
  countedOnly(linkId: number, n: number, now = Date.now()) {
    const at = new Date(now).toISOString();
    this.add(linkId, "day", at.slice(0, 10), n);
    this.add(linkId, "hour", at.slice(0, 13), n);
    this.add(linkId, "summary", "undetailed", n);
    this.seen(linkId, now);
  }

  private host(referrer: string | null) {
    if (!referrer) return "Direct";
    let h = this.hosts.get(referrer);
    if (h === undefined) {
      h = referrerHost(referrer);
      if (this.hosts.size < 1_000) this.hosts.set(referrer, h);
    }
    return h;
  }

  /** Rows the upsert will write. */
  get size() {
    return this.rowCount;
  }

  /**
   * [[linkId, dim, value, n], …] as JSON text, 'summary'/'last_ms' rows included (the upserts
   * keep the larger of those), links in id order: two writers (PostgreSQL instances) lock the
   * rows in one order.
   */
  json() {
    let out = "[";
    let first = true;
    this.rows((l, dim, value, n) => {
      out += `${first ? "" : ","}[${l},"${dim}",${JSON.stringify(value)},${n}]`;
      first = false;
    });
    return `${out}]`;
  }

  /** Each row the upsert writes, in json()'s order. */
  rows(row: (linkId: number, dim: string, value: string, n: number) => void) {
    const ids = Float64Array.from(this.links.keys()).sort();
    for (const l of ids) {
      const t = this.links.get(l)!;
      for (let i = 0; i < DIMS.length; i++) for (const [value, n] of t.dims[i]!) row(l, DIMS[i]!, value, n);
      for (let i = 0; i < SUMMARY.length; i++) if (t.summary[i] !== 0) row(l, "summary", SUMMARY[i]!, t.summary[i]!);
      if (t.last > 0) row(l, "summary", "last_ms", t.last);
    }
  }
}

/** Clicks a minute from one source (address, else visitor) on one link that keep a detail row (CLICK_DETAIL_PER_MINUTE's default). */
export const DETAIL_PER_MINUTE = 60;
/** Sources remembered per minute at most: past it, new sources keep their detail (fail open). */
const THROTTLE_KEYS_MAX = 200_000;

/**
 * The per-source detail throttle (issue 21): past DETAIL_PER_MINUTE clicks in one clock minute
 * from one source on one link, a click is still counted and tallied but stores no detail row,
 * so one client's flood cannot fill the disk. Per click writer (one per instance).
 */
export class DetailThrottle {
  private minute = -1;
  private seen = new Map<string, number>();

  constructor(private perMinute = DETAIL_PER_MINUTE) {}

  keep(linkId: number, source: string, at: number) {
    const minute = Math.floor(at / 60_000);
    if (minute !== this.minute) {
      // Clicks arrive in capture order, give or take a batch: an older minute's straggler
      // starts no new window.
      if (minute < this.minute) return true;
      this.minute = minute;
      this.seen = new Map();
    }
    const key = `${linkId}\t${source}`;
    const n = (this.seen.get(key) ?? 0) + 1;
    if (n === 1 && this.seen.size >= THROTTLE_KEYS_MAX) return true;
    this.seen.set(key, n);
    return n <= this.perMinute;
  }
}

/** User agents and referrers are stored at most this long (the tallies use the whole value). */
export const DETAIL_TEXT_MAX = 512;

export const clip = (s: string | null) => (s !== null && s.length > DETAIL_TEXT_MAX ? s.slice(0, DETAIL_TEXT_MAX) : s);
