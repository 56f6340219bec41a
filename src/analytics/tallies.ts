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
};

const SEP = "\u0000";

/** A batch's tallies, per (link, dim, value), ready for one upsert. */
export class Tallies {
  private counts = new Map<string, number>();
  private last = new Map<number, number>();
  // Referrers repeat heavily; URL parsing is the costliest step of a tally.
  private hosts = new Map<string, string>();

  add(linkId: number, dim: string, value: string, n = 1) {
    const key = `${linkId}${SEP}${dim}${SEP}${value}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + n);
  }

  /** The newest click of a link (kept as the largest, not added). */
  seen(linkId: number, ms: number) {
    if (ms > (this.last.get(linkId) ?? 0)) this.last.set(linkId, ms);
  }

  click(c: TalliedClick) {
    this.dims(c);
    this.summary(c);
  }

  /** The per-value tallies the report's tables and chart read (what the old roll-ups held). */
  dims(c: TalliedClick) {
    const l = c.linkId;
    this.add(l, "country", c.country ?? UNKNOWN);
    this.add(l, "city", c.city ?? UNKNOWN);
    this.add(l, "browser", c.browser ?? UNKNOWN);
    this.add(l, "device", c.deviceType ?? UNKNOWN);
    this.add(l, "os", c.os ?? UNKNOWN);
    this.add(l, "referrer", this.host(c.referrer));
    this.add(l, "day", c.timestamp.slice(0, 10));
  }

  /** The summary counts added with issue 21 (see SummaryValue). */
  summary(c: TalliedClick) {
    const l = c.linkId;
    if (c.isBot) this.add(l, "summary", "bots");
    this.add(l, "summary", c.visitNumber > 1 ? "returning" : "new");
    this.add(l, "summary", c.detail ? "rows" : "undetailed");
    this.seen(l, Date.parse(c.timestamp));
  }

  /**
   * Clicks counted without anything known of them but their link (the recorder's overload
   * bound, recorder.ts MAX_BACKLOG): their day is the day they reach the writer, seconds after
   * they happened.
   */
  countedOnly(linkId: number, n: number, now = Date.now()) {
    this.add(linkId, "day", new Date(now).toISOString().slice(0, 10), n);
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

  get size() {
    return this.counts.size + this.last.size;
  }

  /** [[linkId, dim, value, n], …] as JSON, 'summary'/'last_ms' rows included (see upsertSql). */
  json() {
    const rows: [number, string, string, number][] = [];
    for (const [key, n] of this.counts) {
      const [l, dim, value] = key.split(SEP) as [string, string, string];
      rows.push([Number(l), dim, value, n]);
    }
    for (const [l, ms] of this.last) rows.push([l, "summary", "last_ms", ms]);
    // In key order: two writers (PostgreSQL instances) lock the rows in one order.
    rows.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0));
    return JSON.stringify(rows);
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
    const key = `${linkId}${SEP}${source}`;
    const n = (this.seen.get(key) ?? 0) + 1;
    if (n === 1 && this.seen.size >= THROTTLE_KEYS_MAX) return true;
    this.seen.set(key, n);
    return n <= this.perMinute;
  }
}

/** User agents and referrers are stored at most this long (the tallies use the whole value). */
export const DETAIL_TEXT_MAX = 512;

export const clip = (s: string | null) => (s !== null && s.length > DETAIL_TEXT_MAX ? s.slice(0, DETAIL_TEXT_MAX) : s);
