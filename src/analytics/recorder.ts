// Click recording off the hot path: the redirect only pushes a few raw strings into a buffer;
// parsing, location and the database write happen ~100 ms later in one transaction.
import { UAParser } from "ua-parser-js";
import { isbot } from "isbot";
import type { Db } from "../db/open";
import { log } from "../http/log";
import { analyticsStore, type ClickRecord, type Milestone } from "./store";
import { Geo } from "./geo";

/** What the redirect captures: cheap to take, nothing parsed yet. */
export type RawClick = {
  linkId: number;
  at: number;
  userAgent: string | null;
  referrer: string | null;
  /** The visitor's full address: used for location, then stored per IP_STORAGE. */
  ip: string | null;
  visitorId: string | null;
  /** The visitor cookie was minted for this click. */
  newVisitor: boolean;
  source: string;
  /** Location a trusted proxy told us, when it did. */
  country: string | null;
  city: string | null;
};

export const FLUSH_INTERVAL_MS = 100;
// Clicks are written in slices of at most this many, each its own short transaction with the
// event loop free in between, so a burst never holds a visitor's redirect for long.
export const SLICE = 64;
// A bound on memory if the disk stalls: beyond this, a flush is forced from the capture path.
const MAX_BUFFER = 50_000;
const UA_CACHE_MAX = 2_000;
const MILESTONES = [1, 100, 1_000, 10_000];

type Parsed = { browser: string | null; os: string | null; deviceType: string | null; isBot: boolean };

/** IP_STORAGE: 'truncated' keeps /24 of IPv4 and /48 of IPv6, like Shlink's default. */
export function storeIp(ip: string | null, mode: "truncated" | "full" | "none"): string | null {
  if (!ip || mode === "none") return null;
  if (mode === "full") return ip;
  if (ip.includes(":")) {
    const groups = expandIpv6(ip);
    return groups ? `${groups.slice(0, 3).join(":")}::` : null;
  }
  const p = ip.split(".");
  return p.length === 4 ? `${p[0]}.${p[1]}.${p[2]}.0` : null;
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

export class ClickRecorder {
  private buffer: RawClick[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private store;
  private uaCache = new Map<string, Parsed>();
  readonly geo: Geo;

  constructor(
    private db: Db,
    private opts: { ipStorage: "truncated" | "full" | "none"; geoipDb: string | null; onMilestone?: (m: Milestone, reached: number) => void },
  ) {
    this.store = analyticsStore(db);
    this.geo = new Geo(opts.geoipDb);
    void this.geo.load();
  }

  /** Called on the request path: O(1), never touches the database. */
  capture(click: RawClick) {
    this.buffer.push(click);
    if (this.buffer.length >= MAX_BUFFER) return this.flush();
    if (this.buffer.length >= SLICE) this.scheduleSlice();
    // The timer exists only while clicks wait, so an idle app has none pending.
    else this.timer ??= setTimeout(() => this.flushSlices(), FLUSH_INTERVAL_MS);
  }

  private sliceScheduled = false;
  private scheduleSlice() {
    if (this.sliceScheduled) return;
    this.sliceScheduled = true;
    setImmediate(() => {
      this.sliceScheduled = false;
      this.flushSlices(true);
    });
  }

  /** Writes one slice, then yields to the event loop before the next. */
  private flushSlices(oneSlice = false) {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.buffer.length === 0) return;
    this.write(this.buffer.splice(0, SLICE));
    if (this.buffer.length >= SLICE || (!oneSlice && this.buffer.length > 0)) this.scheduleSlice();
    else if (this.buffer.length > 0) this.timer ??= setTimeout(() => this.flushSlices(), FLUSH_INTERVAL_MS);
  }

  /** Writes everything buffered now. Safe to call at any time (shutdown, before a delete or a read). */
  flush() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.buffer.length > 0) {
      if (!this.write(this.buffer.splice(0, SLICE * 8))) break;
    }
  }

  private write(batch: RawClick[]): boolean {
    const records = batch.map((c) => this.enrich(c));
    try {
      // Milestone notifications join the clicks' transaction: one commit per slice, not one
      // more per link that gets its first click.
      this.db.transaction(() => {
        const moved = this.store.writeBatch(records);
        if (!this.opts.onMilestone) return;
        for (const m of moved) {
          for (const n of MILESTONES) if (m.before < n && m.after >= n) this.safe(() => this.opts.onMilestone!(m, n));
        }
      })();
    } catch (e) {
      // Keep the clicks for the next attempt (a locked or full disk may recover) within the bound.
      log.error("click flush failed", { clicks: batch.length, error: String(e) });
      this.buffer = batch.concat(this.buffer).slice(-MAX_BUFFER);
      this.timer ??= setTimeout(() => this.flushSlices(), 1000);
      return false;
    }
    return true;
  }

  private safe(f: () => void) {
    try {
      f();
    } catch (e) {
      log.error("milestone notification failed", { error: String(e) });
    }
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

  private enrich(c: RawClick): ClickRecord {
    const ua = this.parseUa(c.userAgent);
    // A proxy's headers win; the databases fill in whatever they left out.
    const looked = c.country && c.city ? null : this.geo.lookup(c.ip);
    const place = { country: c.country ?? looked?.country ?? null, city: c.city ?? looked?.city ?? null };
    return {
      linkId: c.linkId,
      timestamp: new Date(c.at).toISOString(),
      referrer: c.referrer,
      userAgent: c.userAgent,
      ip: storeIp(c.ip, this.opts.ipStorage),
      country: place.country,
      city: place.city,
      deviceType: ua.deviceType,
      browser: ua.browser,
      os: ua.os,
      // Without a cookie (HEAD-less clients, unknown hosts) the visitor is its address and agent.
      visitorId: c.visitorId ?? `h:${hashVisitor(c.ip, c.userAgent)}`,
      newVisitor: c.newVisitor && c.visitorId !== null,
      isBot: ua.isBot,
      source: c.source,
    };
  }
}

function hashVisitor(ip: string | null, ua: string | null) {
  return new Bun.CryptoHasher("sha256").update(`${ip ?? ""}|${ua ?? ""}`).digest("base64url").slice(0, 22);
}
