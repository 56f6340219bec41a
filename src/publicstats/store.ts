// The only SQL for public stats pages (issue 26): the published token per link, and the page's
// reads, which touch the roll-ups and the link's count only, never a click row.
import type { Database } from "../db/database";
import { nowIso } from "../shared/time";
import { analyticsStore } from "../analytics/store";
import type { Dimension } from "../analytics/schema";

export type PublishedRow = { link_id: number; token: string; created_at: string };
export type PageLink = { id: number; short_code: string; title: string; tracker: string; clicks: number };

export function publicStatsStore(db: Database) {
  const analytics = analyticsStore(db);
  return {
    /** The user's own link (either tracker) and its published row, if any; null when not theirs. */
    async forOwner(linkId: number, userId: number) {
      const r = await db.get<{ id: number; token: string | null; created_at: string | null }>(
        "SELECT l.id, p.token, p.created_at FROM short_links l LEFT JOIN public_stats p ON p.link_id = l.id WHERE l.id = ? AND l.user_id = ?",
        linkId, userId,
      );
      return r ? { id: Number(r.id), token: r.token, createdAt: r.created_at } : null;
    },
    /**
     * Publishes the link's stats under `token`, replacing an earlier token (the old address stops
     * working); authorised in the statement. Returns the old token (to drop from caches), or
     * false when the link is not the user's.
     */
    publish: (linkId: number, userId: number, token: string) =>
      db.tx(async (q) => {
        const own = await q.get<{ token: string | null }>(
          "SELECT p.token FROM short_links l LEFT JOIN public_stats p ON p.link_id = l.id WHERE l.id = ? AND l.user_id = ?",
          linkId, userId,
        );
        if (!own) return false as const;
        await q.run("DELETE FROM public_stats WHERE link_id = ?", linkId);
        const row = await q.get<PublishedRow>("INSERT INTO public_stats (link_id, token, created_at) VALUES (?, ?, ?) RETURNING link_id, token, created_at", linkId, token, nowIso());
        return { old: own.token, row: row! };
      }),
    /** Unpublishes: the token that stopped working, null when none was published, false when not the user's link. */
    revoke: (linkId: number, userId: number) =>
      db.tx(async (q) => {
        const own = await q.get<{ token: string | null }>(
          "SELECT p.token FROM short_links l LEFT JOIN public_stats p ON p.link_id = l.id WHERE l.id = ? AND l.user_id = ?",
          linkId, userId,
        );
        if (!own) return false as const;
        if (own.token !== null) await q.run("DELETE FROM public_stats WHERE link_id = ?", linkId);
        return own.token;
      }),
    /** The published link behind a token, with its click count; null for an unknown token. */
    async byToken(token: string): Promise<PageLink | null> {
      const r = await db.get<PageLink>(
        `SELECT l.id, l.short_code, l.title, l.tracker, COALESCE(c.clicks, 0) AS clicks
         FROM public_stats p JOIN short_links l ON l.id = p.link_id LEFT JOIN link_click_counts c ON c.link_id = l.id
         WHERE p.token = ?`,
        token,
      );
      return r ? { ...r, id: Number(r.id), clicks: Number(r.clicks) } : null;
    },
    /** The page's numbers: per-day clicks since `since`, the top values of three dimensions, unique visitors. */
    async figures(linkId: number, since: string) {
      const dims: Dimension[] = ["country", "device", "referrer"];
      const [days, summary, ...tops] = await Promise.all([analytics.days(linkId, since), analytics.summary(linkId), ...dims.map((d) => analytics.top(linkId, d))]);
      const tally = (i: number) => tops[i]!.map((t) => ({ name: t.name, count: Number(t.count) }));
      return { days: days.map((d) => ({ day: d.day, count: Number(d.count) })), unique: summary.unique ?? null, countries: tally(0), devices: tally(1), referrers: tally(2) };
    },
  };
}
