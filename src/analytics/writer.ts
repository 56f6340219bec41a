// The click writer: turns raw clicks into rows (user agent parsed, bot flag, location, IP per
// IP_STORAGE) and writes a batch in one IMMEDIATE transaction together with the milestone
// notifications it causes. It runs inside the click worker (src/analytics/clickWorker.ts) on
// that worker's own connection, so none of this is paid for on the request thread.
import { UAParser } from "ua-parser-js";
import { isbot } from "isbot";
import type { Db } from "../db/open";
import { sqliteClickEvents } from "../events/store";
import { clickWriterStore, MILESTONES, type ClickRecord, type CountMove, type LinkInfo } from "./writerStore";
import { Geo } from "./geo";
import type { IpStorage, RawClick } from "./clickMessages";
import { clip, DetailThrottle } from "./tallies";
import { limitKey } from "../http/ip";
import { letAppWritesFirst, type WriteTurn } from "../db/writeTurn";

const UA_CACHE_MAX = 2_000;
/**
 * The writer connection's page cache (KiB). A click upserts a dozen tally rows on its link's
 * pages, anywhere in link_rollups: with SQLite's default 2 MB, most of those pages were read
 * back through the kernel for every batch. 64 MB holds the pages of ~100,000 links' tallies;
 * it fills only as fast as clicks reach that many links.
 */
const WRITER_CACHE_KIB = 65_536;

/** How the click writer's own connection is set up (the click worker's; the benchmark's too). */
export function writerConnection(db: Db) {
  // The worker checkpoints on a timer (clickWorker.ts): a commit never stops to copy the WAL,
  // and a page rewritten by several commits in a second is copied into the database once.
  db.exec("PRAGMA wal_autocheckpoint = 0");
  // The writer checks that a click's link exists itself: in the same IMMEDIATE transaction
  // it removes the new rows of any link without a count row (deleted meanwhile), one probe
  // per click in SQLite. The per-row foreign key probe would repeat that check. Those are
  // the only rows this connection deletes (nothing references a click row).
  db.exec("PRAGMA foreign_keys = OFF");
  // The count update groups each transaction's clicks in a temporary B-tree: in memory it
  // is a few hundred KB; as a temporary file it cost ~4 µs a click in the kernel at
  // transactions of 512 (docs/performance.md).
  db.exec("PRAGMA temp_store = MEMORY");
  db.exec(`PRAGMA cache_size = -${WRITER_CACHE_KIB}`);
}
const TRACKER_PAGE: Record<string, string> = { main: "/link-tracker", brand: "/pic-drift-link-tracker" };

type Parsed = { browser: string | null; os: string | null; deviceType: string | null; isBot: boolean };

/** IP_STORAGE: 'truncated' keeps /24 of IPv4 and /48 of IPv6, like Shlink's default. */
export function storeIp(ip: string | null, mode: IpStorage): string | null {
  if (!ip || mode === "none") return null;
  if (mode === "full") return ip;
  if (ip.includes(":")) {
    const groups = expandIpv6(ip);
    return groups ? `${groups.slice(0, 3).join(":")}::` : null;
  }
  // Four dot-separated parts: the first three and a 0, as split(".") would give them, without
  // making the parts (one string a click instead of five).
  let dots = 0;
  for (let i = 0; i < ip.length; i++) if (ip.charCodeAt(i) === 46) dots++;
  return dots === 3 ? `${ip.slice(0, ip.lastIndexOf("."))}.0` : null;
}

function expandIpv6(ip: string): string[] | null {
  const [head = "", tail] = ip.split("::");
  const a = head ? head.split(":") : [];
  const b = tail !== undefined && tail !== "" ? tail.split(":") : [];
  if (tail === undefined && a.length !== 8) return null;
  const fill = 8 - a.length - b.length;
  if (fill < 0) return null;
  return [...a, ...Array(fill).fill("0"), ...b].map((g) => (g || "0").toLowerCase().replace(/^0+(?=.)/, ""));
}

function hashVisitor(ip: string | null, ua: string | null) {
  return new Bun.CryptoHasher("sha256").update(`${ip ?? ""}|${ua ?? ""}`).digest("base64url").slice(0, 22);
}

export function milestoneMessage(title: string, shortCode: string, n: number) {
  return n === 1 ? `Your link "${title}" (/${shortCode}) got its first click` : `Your link "${title}" (/${shortCode}) passed ${n.toLocaleString("en-US")} clicks`;
}

/**
 * The owner's notices for the milestones (MILESTONES) a count move crossed; none for a link
 * without an owner (the root link) or gone. No dedupe key: the count moves only in the click
 * writer's transaction, so each crossing happens once. (A brand link's reset starts its count
 * again; its next first click is news again.) Without one, the notification's index entries
 * are appended.
 */
export function milestoneNotices(m: CountMove, link: LinkInfo | null) {
  if (!link || link.user_id === null) return [];
  const userId = link.user_id;
  return MILESTONES.filter((n) => m.before < n && m.after >= n).map((n) => ({
    userId,
    kind: "link-clicks",
    message: milestoneMessage(link.title, link.short_code, n),
    link: TRACKER_PAGE[link.tracker] ?? "/link-tracker",
  }));
}

/**
 * A raw click made a row's values: user agent parsed (cached), bot flag, location, address per
 * IP_STORAGE, visitor. Shared by both click writers: SQLite's below and PostgreSQL's (pgWriter.ts).
 */
export class ClickEnricher {
  private uaCache = new Map<string, Parsed>();
  // Clicks arrive tens to a millisecond under load: the last time's text serves them all.
  private lastAt = Number.NaN;
  private lastIso = "";
  readonly geo: Geo;
  private throttle: DetailThrottle;

  constructor(private enrichOpts: { ipStorage: IpStorage; geoipDb: string | null; detailPerMinute?: number | undefined }) {
    this.geo = new Geo(enrichOpts.geoipDb);
    this.throttle = new DetailThrottle(enrichOpts.detailPerMinute);
  }

  parseUa(ua: string | null): Parsed {
    if (!ua) return { browser: null, os: null, deviceType: null, isBot: false };
    const hit = this.uaCache.get(ua);
    if (hit) return hit;
    const r = UAParser(ua);
    const parsed: Parsed = {
      browser: r.browser.name ?? null,
      os: r.os.name ?? null,
      // ua-parser-js leaves desktops untyped; a known desktop OS means a desktop.
      deviceType: r.device.type ?? (r.os.name ? "desktop" : null),
      isBot: isbot(ua),
    };
    // User agents repeat heavily; a bounded cache (oldest out first) keeps memory flat.
    if (this.uaCache.size >= UA_CACHE_MAX) this.uaCache.delete(this.uaCache.keys().next().value!);
    this.uaCache.set(ua, parsed);
    return parsed;
  }

  private iso(at: number) {
    if (at !== this.lastAt) {
      this.lastAt = at;
      this.lastIso = new Date(at).toISOString();
    }
    return this.lastIso;
  }

  enrich(c: RawClick): ClickRecord {
    const ua = this.parseUa(c.userAgent);
    // A proxy's headers win; the databases fill in whatever they left out.
    const looked = c.country && c.city ? null : this.geo.lookup(c.ip);
    return {
      linkId: c.linkId,
      timestamp: this.iso(c.at),
      // Bounded (tallies.ts DETAIL_TEXT_MAX): the agent was parsed whole above.
      referrer: clip(c.referrer),
      userAgent: clip(c.userAgent),
      ip: storeIp(c.ip, this.enrichOpts.ipStorage),
      country: c.country ?? looked?.country ?? null,
      city: c.city ?? looked?.city ?? null,
      deviceType: ua.deviceType,
      browser: ua.browser,
      os: ua.os,
      // Without a cookie (HEAD-less clients, unknown hosts) the visitor is its address and agent.
      visitorId: c.visitorId ?? `h:${hashVisitor(c.ip, c.userAgent)}`,
      newVisitor: c.newVisitor && c.visitorId !== null,
      isBot: ua.isBot,
      source: c.source,
      route: c.route,
      // The source is the address (before IP_STORAGE), an IPv6 one by its /64 as the per-address
      // limits count it: one client holds a whole /64 and could send each click from a new
      // address of it, keeping a detail row for every one. Without an address, the visitor.
      detail: this.throttle.keep(c.linkId, c.ip ? limitKey(c.ip) : (c.visitorId ?? ""), c.at),
    };
  }
}

/** Link id → clicks of a batch (rows and counted-only), for its clicks.recorded events. */
export function clicksPerLink(records: readonly { linkId: number }[], countedOnly?: ReadonlyMap<number, number>) {
  const counts = new Map<number, number>(countedOnly);
  for (const c of records) counts.set(c.linkId, (counts.get(c.linkId) ?? 0) + 1);
  return counts;
}

export class ClickWriter extends ClickEnricher {
  private store;
  private events;

  constructor(
    private db: Db,
    private opts: {
      ipStorage: IpStorage;
      geoipDb: string | null;
      foldEvery?: number | undefined;
      detailPerMinute?: number | undefined;
      /** The request thread's waiting writes: each transaction here lets them go first (src/db/writeTurn.ts). */
      writeTurn?: WriteTurn | null | undefined;
    },
  ) {
    super(opts);
    this.store = clickWriterStore(db);
    this.events = sqliteClickEvents(db);
  }

  /**
   * Writes the batch: rows, counts and milestone notifications commit together or not at all
   * (a failure throws and the caller keeps the batch). `countedOnly`: per link, clicks to count
   * without a row (dropped under overload, see recorder.ts MAX_BACKLOG). Returns the number of clicks written.
   */
  write(batch: RawClick[], countedOnly?: ReadonlyMap<number, number>) {
    const records = batch.map((c) => this.enrich(c));
    letAppWritesFirst(this.opts.writeTurn ?? null);
    this.db
      .transaction(() => {
        const moved = this.store.writeBatch(records, countedOnly);
        // The event log's clicks.recorded, one per link of the batch; milestone notices are its consumers'.
        this.events.record(
          clicksPerLink(records, countedOnly),
          moved.map((m) => m.linkId),
        );
        // In the same transaction: the fold mark and the rows it covers never disagree.
        this.store.fold(this.opts.foldEvery);
      })
      // Takes the write lock first: the app's connection writes too (see store.ts rollUp).
      .immediate();
    return batch.length;
  }

  /** One transaction of the one-time roll-up backfill (writerStore.ts); true while more is left. */
  backfillStep() {
    letAppWritesFirst(this.opts.writeTurn ?? null);
    return this.db.transaction(() => this.store.backfillChunk()).immediate();
  }

  /** One transaction of retention (writerStore.ts): the rows deleted. Never before the backfill is done. */
  retentionStep(cutoff: string) {
    if (this.store.backfillPending()) return 0;
    letAppWritesFirst(this.opts.writeTurn ?? null);
    return this.db.transaction(() => this.store.retentionChunk(cutoff)).immediate();
  }

  /** Folds whatever tail is left (a graceful stop, an idle writer): readers then scan none. */
  foldAll() {
    letAppWritesFirst(this.opts.writeTurn ?? null);
    return this.db.transaction(() => this.store.fold(1)).immediate();
  }
}
