// The only SQL for click analytics: the batched click writer and the aggregate reads.
import type { Db } from "../db/open";

/** A click ready to store (parsed, located, anonymised). */
export type ClickRecord = {
  linkId: number;
  timestamp: string;
  referrer: string | null;
  userAgent: string | null;
  ip: string | null;
  country: string | null;
  city: string | null;
  deviceType: string | null;
  browser: string | null;
  os: string | null;
  visitorId: string;
  isBot: boolean;
  source: string;
};

export type ClickRow = {
  id: number;
  timestamp: string;
  referrer: string | null;
  user_agent: string | null;
  ip: string | null;
  country: string | null;
  city: string | null;
  device_type: string | null;
  browser: string | null;
  os: string | null;
  metadata: string;
};

export type ClickView = {
  id: number;
  timestamp: string;
  browser: string | null;
  deviceType: string | null;
  os: string | null;
  userAgent: string | null;
  country: string | null;
  city: string | null;
  referrer: string | null;
  metadata: { isReturningVisitor: boolean; visitNumber: number; source: string; isBot: boolean };
};

export type Tally = { name: string; count: number };

export const DIMENSIONS = ["country", "city", "browser", "device", "os", "referrer"] as const;
export type Dimension = (typeof DIMENSIONS)[number];

const UNKNOWN = "Unknown";
const TOP = 10;

/** The referrer as the tallies show it: its host name, or 'Direct'. */
export function referrerHost(referrer: string | null) {
  if (!referrer) return "Direct";
  try {
    return new URL(referrer).hostname || "Direct";
  } catch {
    return "Direct";
  }
}

export function toClickView(r: ClickRow): ClickView {
  let m: Partial<ClickView["metadata"]> = {};
  try {
    m = JSON.parse(r.metadata);
  } catch {
    m = {};
  }
  return {
    id: r.id,
    timestamp: r.timestamp,
    browser: r.browser,
    deviceType: r.device_type,
    os: r.os,
    userAgent: r.user_agent,
    country: r.country,
    city: r.city,
    referrer: r.referrer,
    metadata: {
      isReturningVisitor: Boolean(m.isReturningVisitor),
      visitNumber: Number(m.visitNumber) || 1,
      source: typeof m.source === "string" ? m.source : "direct",
      isBot: Boolean(m.isBot),
    },
  };
}

export type Milestone = { linkId: number; userId: number | null; title: string; shortCode: string; tracker: string; before: number; after: number };

export function analyticsStore(db: Db) {
  const q = {
    insert: db.prepare(
      `INSERT INTO link_analytics (link_id, timestamp, referrer, user_agent, ip, country, city, device_type, browser, os, visitor_id, is_bot, metadata)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    bump: db.prepare(
      `INSERT INTO link_rollups (link_id, dim, value, count) VALUES (?, ?, ?, 1)
       ON CONFLICT (link_id, dim, value) DO UPDATE SET count = count + 1 RETURNING count`,
    ),
    exists: db.prepare("SELECT user_id, title, short_code, tracker, click_count FROM short_links WHERE id = ?"),
    addCount: db.prepare("UPDATE short_links SET click_count = click_count + ? WHERE id = ? RETURNING click_count"),
    top: db.prepare("SELECT value AS name, count FROM link_rollups WHERE link_id = ? AND dim = ? ORDER BY count DESC, value LIMIT ?"),
    summary: db.prepare("SELECT count FROM link_rollups WHERE link_id = ? AND dim = 'summary' AND value = 'unique'"),
    days: db.prepare("SELECT value AS day, count FROM link_rollups WHERE link_id = ? AND dim = 'day' AND value >= ? ORDER BY value"),
    last: db.prepare("SELECT MAX(timestamp) AS last FROM link_analytics WHERE link_id = ?"),
    total: db.prepare("SELECT COUNT(*) AS n FROM link_analytics WHERE link_id = ?"),
    page: db.prepare(
      `SELECT id, timestamp, referrer, user_agent, ip, country, city, device_type, browser, os, metadata
       FROM link_analytics WHERE link_id = ? ORDER BY timestamp DESC, id DESC LIMIT ? OFFSET ?`,
    ),
    all: db.prepare(
      `SELECT id, timestamp, referrer, user_agent, ip, country, city, device_type, browser, os, metadata
       FROM link_analytics WHERE link_id = ? ORDER BY timestamp DESC, id DESC`,
    ),
  };

  /**
   * Writes a batch of clicks in one transaction: the rows, the rollups, and the links' counts.
   * Returns the links whose count moved, so the caller can announce milestones. Clicks for a
   * link deleted meanwhile are dropped (its history went with it).
   */
  const writeBatch = db.transaction((clicks: ClickRecord[]): Milestone[] => {
    const perLink = new Map<number, { n: number; link: { user_id: number | null; title: string; short_code: string; tracker: string; click_count: number } }>();
    for (const c of clicks) {
      let entry = perLink.get(c.linkId);
      if (!entry) {
        const link = q.exists.get(c.linkId) as { user_id: number | null; title: string; short_code: string; tracker: string; click_count: number } | null;
        if (!link) continue;
        entry = { n: 0, link };
        perLink.set(c.linkId, entry);
      }
      entry.n++;
      // The visitor's click count on this link is its visit number.
      const visitNumber = (q.bump.get(c.linkId, "visitor", c.visitorId) as { count: number }).count;
      if (visitNumber === 1 && !c.isBot) q.bump.get(c.linkId, "summary", "unique");
      const dims: [string, string][] = [
        ["country", c.country ?? UNKNOWN],
        ["city", c.city ?? UNKNOWN],
        ["browser", c.browser ?? UNKNOWN],
        ["device", c.deviceType ?? UNKNOWN],
        ["os", c.os ?? UNKNOWN],
        ["referrer", referrerHost(c.referrer)],
        ["day", c.timestamp.slice(0, 10)],
      ];
      for (const [dim, value] of dims) q.bump.get(c.linkId, dim, value);
      const metadata = JSON.stringify({ isReturningVisitor: visitNumber > 1, visitNumber, source: c.source, isBot: c.isBot });
      q.insert.run(c.linkId, c.timestamp, c.referrer, c.userAgent, c.ip, c.country, c.city, c.deviceType, c.browser, c.os, c.visitorId, c.isBot ? 1 : 0, metadata);
    }
    const moved: Milestone[] = [];
    for (const [linkId, { n, link }] of perLink) {
      const after = (q.addCount.get(n, linkId) as { click_count: number }).click_count;
      moved.push({ linkId, userId: link.user_id, title: link.title, shortCode: link.short_code, tracker: link.tracker, before: after - n, after });
    }
    return moved;
  });

  return {
    writeBatch: (clicks: ClickRecord[]) => writeBatch(clicks),
    top: (linkId: number, dim: Dimension, limit = TOP) => q.top.all(linkId, dim, limit) as Tally[],
    uniqueVisitors: (linkId: number) => (q.summary.get(linkId) as { count: number } | null)?.count ?? 0,
    /** Clicks per UTC day from `since` (YYYY-MM-DD) on; days without clicks are absent. */
    days: (linkId: number, since: string) => q.days.all(linkId, since) as { day: string; count: number }[],
    lastClick: (linkId: number) => (q.last.get(linkId) as { last: string | null }).last,
    total: (linkId: number) => (q.total.get(linkId) as { n: number }).n,
    page: (linkId: number, limit: number, offset: number) => (q.page.all(linkId, limit, offset) as ClickRow[]).map(toClickView),
    iterate: (linkId: number) => q.all.iterate(linkId) as IterableIterator<ClickRow>,
  };
}

export type AnalyticsStore = ReturnType<typeof analyticsStore>;
