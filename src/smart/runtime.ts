// What the redirect keeps in memory for smart links besides their compiled settings: the
// limited links' click counts, the password page's view and unlock tallies (written every
// second, apart from the clicks), the unlock cookies' key and the offline location lookup.
import type { AppContext } from "../context";
import { Geo } from "../analytics/geo";
import { log } from "../http/log";
import { smartStore, type GateCount } from "./store";

/** How often gate tallies are written, and (PostgreSQL) limited links' counts read back. */
export const SMART_SYNC_MS = 1_000;

type CountSource = { clickCounts(ids: number[]): Promise<{ link_id: number; clicks: number }[]> };

export async function smartRuntime(ctx: AppContext, counts: CountSource) {
  const store = smartStore(ctx.db, { maxTemplates: ctx.config.quotas.utmTemplatesPerUser });
  const key = ctx.config.linkCookieSecret ?? (await store.instanceSecret("link-cookie", () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")));

  /**
   * A limited link's clicks so far: the click writer's total when the link entered the map,
   * plus every click this instance sent since (so exact on SQLite, before the writer has them).
   * On PostgreSQL the other instances' clicks are read back every SMART_SYNC_MS (README: the
   * overshoot this allows).
   */
  const clicks = new Map<number, number>();
  /** Each limited link's resets seen (short_links.clicks_reset): a higher one restarts its count. */
  const resets = new Map<number, number>();
  let gate = new Map<string, GateCount>();
  let geo: Geo | null = null;

  const tally = (linkId: number, kind: "views" | "unlocks") => {
    const day = new Date().toISOString().slice(0, 10);
    const k = `${linkId}|${day}`;
    let c = gate.get(k);
    if (!c) gate.set(k, (c = { linkId, day, views: 0, unlocks: 0 }));
    c[kind]++;
  };

  const flushGate = async () => {
    if (gate.size === 0) return;
    const batch = [...gate.values()];
    gate = new Map();
    try {
      await store.addGateCounts(batch);
    } catch (e) {
      log.warn("password page counts could not be written", { error: String(e) });
    }
  };

  let syncing = false;
  const sync = async () => {
    if (syncing) return;
    syncing = true;
    try {
      await flushGate();
      if (ctx.config.databaseUrl && clicks.size > 0) {
        // A reset seen while the counts were read: the count read may be from before it.
        const asked = new Map(resets);
        for (const r of await counts.clickCounts([...clicks.keys()])) {
          const id = Number(r.link_id);
          const had = clicks.get(id);
          if (had !== undefined && Number(r.clicks) > had && resets.get(id) === asked.get(id)) clicks.set(id, Number(r.clicks));
        }
      }
    } catch (e) {
      log.warn("limited links' counts could not be read", { error: String(e) });
    } finally {
      syncing = false;
    }
  };
  const timer = setInterval(() => void sync(), SMART_SYNC_MS);
  timer.unref?.();
  ctx.shutdownHooks.push(async () => {
    clearInterval(timer);
    await flushGate();
  });

  return {
    store,
    key,
    clicks: (linkId: number) => clicks.get(linkId) ?? 0,
    /** One more click sent by this instance (a limited link's GET). */
    counted: (linkId: number) => clicks.set(linkId, (clicks.get(linkId) ?? 0) + 1),
    /**
     * A limited link entered the map with `known` clicks: kept if this instance has counted more,
     * unless the row says its clicks were reset since this instance last saw it (`resetCount`,
     * another instance's reset: follow.ts brings the row), when `known` is the count.
     */
    seed(linkId: number, known: number, resetCount?: number | null) {
      const seen = resets.get(linkId) ?? 0;
      const wasReset = resetCount != null && resetCount > seen;
      if (resetCount != null) resets.set(linkId, Math.max(seen, resetCount));
      clicks.set(linkId, wasReset ? known : Math.max(clicks.get(linkId) ?? 0, known));
    },
    /** The link's clicks were reset (brand tracker): its limit counts from zero again. */
    reset: (linkId: number) => {
      if (clicks.has(linkId)) clicks.set(linkId, 0);
      // This instance's own reset: the row's bumped number, when it comes back, is no news.
      resets.set(linkId, (resets.get(linkId) ?? 0) + 1);
    },
    forget: (linkId: number) => {
      clicks.delete(linkId);
      resets.delete(linkId);
    },
    gateView: (linkId: number) => tally(linkId, "views"),
    gateUnlock: (linkId: number) => tally(linkId, "unlocks"),
    /** Tallies written now (tests, and reads that must see them). */
    flushGate,
    /** The offline lookup the analytics use, opened at the first rule that needs it. */
    place: (ip: string | null) => (geo ??= new Geo(ctx.config.geoipDb)).lookup(ip),
  };
}
