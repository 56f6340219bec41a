// The short-link feature's state, built once per app: the store, the in-memory code → link
// map the redirects read, and the click recorder. Every write goes through here so the map
// stays exact (a changed destination is used by the very next redirect).
import type { AppContext } from "../context";
import { ClickRecorder } from "../analytics/recorder";
import { linksStore, type LinkRow, type RedirectRow } from "./store";
import type { LinkView } from "./schema";
import { hostWarning } from "./hostWarning";
import { followLinks } from "./follow";
import { walBytes } from "../db/open";
import { nextTurn } from "./bulk";
import { eventsStore } from "../events/store";
import { compile, type CompiledSmart } from "../smart/decide";
import type { SmartStored } from "../smart/schema";
import { smartRuntime } from "../smart/runtime";
import { log } from "../http/log";

export type CachedLink = {
  id: number;
  /** The stored destination, parsed and re-serialised: ASCII-only, safe for a Location header. */
  href: string;
  active: boolean;
  expiresMs: number | null;
  /**
   * A smart link's compiled settings (password, limit, rules, split: src/smart); undefined for
   * a plain link, whose redirect checks this once and does nothing more (issue 24).
   */
  smart?: CompiledSmart;
};

/** The longest pause between two bulk transactions while the WAL waits to be truncated. */
const WAL_GAP_MS = 200;

function toCached(r: RedirectRow): CachedLink | null {
  let href: string;
  try {
    href = new URL(r.original_url).href;
  } catch {
    return null;
  }
  const cached: CachedLink = { id: r.id, href, active: r.active === 1, expiresMs: r.expires_at ? Date.parse(r.expires_at) : null };
  if (r.smart) {
    let smart: CompiledSmart | null;
    try {
      smart = compile(JSON.parse(r.smart) as SmartStored);
    } catch (e) {
      // Never served without its settings: a protected link must not open by accident.
      log.error("a link's smart settings could not be read; the link is not served", { id: r.id, error: String(e) });
      return null;
    }
    if (smart) cached.smart = smart;
  }
  return cached;
}

/**
 * The code → link map, filled from the database before the app serves (awaited once here);
 * after that every read and update of it is synchronous: the redirect never awaits (issue 12).
 */
export async function createLinks(ctx: AppContext, opts: { maxClickBacklog?: number | undefined } = {}) {
  const store = linksStore(ctx.db, { maxPerUser: ctx.config.quotas.linksPerUser });
  // Every instance runs this at start, with no lock: one UPDATE that writes only when the URL
  // differs, so N instances with the same ROOT_REDIRECT_URL set it once and the rest find it
  // done (instances configured apart would each set theirs: configure them alike, README).
  await store.syncRootUrl(ctx.config.rootRedirectUrl);

  // Clicks are written (and the WAL checkpointed) by a worker with its own connection.
  const recorder = new ClickRecorder(ctx.db, {
    ipStorage: ctx.config.ipStorage,
    geoipDb: ctx.config.geoipDb,
    maxBacklog: opts.maxClickBacklog,
    databaseUrl: ctx.config.databaseUrl,
    retentionDays: ctx.config.clickRetentionDays,
    detailPerMinute: ctx.config.clickDetailPerMinute ?? Number.POSITIVE_INFINITY,
    walLimitBytes: ctx.config.walLimitBytes,
  });
  // Every captured click is written and the worker closed before (in serve) the database closes.
  ctx.shutdownHooks.push(() => recorder.stop());

  const smart = await smartRuntime(ctx, store);
  /** A limited link's count starts from what the row says (its clicks when read). */
  const seed = (row: RedirectRow, c: CachedLink | null) => {
    if (c?.smart?.maxClicks != null) smart.seed(row.id, Number(row.click_count ?? 0));
    else smart.forget(row.id);
  };

  let byCode = new Map<string, CachedLink>();
  const put = (row: RedirectRow) => {
    const c = toCached(row);
    seed(row, c);
    if (c) byCode.set(row.short_code, c);
    else byCode.delete(row.short_code);
  };
  /** Reads every link into a new map, then serves from it: redirects use the old one meanwhile. */
  const loadAll = async () => {
    const next = new Map<string, CachedLink>();
    for await (const r of store.allForRedirect()) {
      const c = toCached(r);
      seed(r, c);
      if (c) next.set(r.short_code, c);
    }
    byCode = next;
  };
  // N instances on one PostgreSQL: every other instance's link writes reach this map through
  // LISTEN/NOTIFY (follow.ts), listened for before the map loads so none falls between the two.
  // SQLite serves one instance, whose own writes (remember/forget below) keep the map exact.
  const follower = ctx.config.databaseUrl
    ? await followLinks(ctx.config.databaseUrl, store, {
        put,
        drop: (code, id) => {
          if (byCode.get(code)?.id === id) byCode.delete(code);
        },
        reloadAll: loadAll,
      })
    : null;
  if (follower) ctx.shutdownHooks.push(() => follower.stop());
  await loadAll();

  const ownHosts = [...new Set([ctx.config.appHost, ctx.config.shortDomain, ctx.config.brandDomain])];
  const dbFile = ctx.db.sqlite?.filename ?? null;
  const walOver = () => dbFile !== null && walBytes(dbFile) > ctx.config.walLimitBytes / 2;

  return {
    store,
    /** The event log, for a change that is not one link's write (an import's end). */
    events: eventsStore(ctx.db),
    recorder,
    /** Smart links' counts, password page tallies, cookie key (src/smart/runtime.ts). */
    smart,
    ownHosts,
    lookup: (code: string) => byCode.get(code),
    /** The map may be missing changes (follow.ts: listener lost or silent, catching up); still served. */
    isStale: () => follower?.stale === true,
    /**
     * Awaited by every link write before it answers: resolves once every live instance has the
     * write in its map (follow.ts, barrier; at most ACK_WAIT_MS). At once on SQLite.
     */
    published: () => follower?.barrier() ?? Promise.resolve(),
    /**
     * Keeps the redirect map exact after a create or an edit (old code removed when renamed).
     * Any row with the redirect's columns will do (a route's LinkRow, or one read by code).
     */
    remember(row: RedirectRow, previousCode?: string) {
      if (previousCode && previousCode !== row.short_code) byCode.delete(previousCode);
      put(row);
    },
    forget: (code: string) => byCode.delete(code),
    /**
     * Between two transactions of a bulk create or an import: a turn of the event loop for
     * redirects and other requests, and (SQLite) while the WAL is past half of WAL_LIMIT_MB, up
     * to WAL_GAP_MS with no transaction open, so the click worker's TRUNCATE checkpoint (whose
     * busy handler polls for the write lock) wins the lock instead of meeting the next batch
     * (clickWorker.ts watchWal). The worker is started if no click has started it yet.
     */
    async writeGap() {
      await nextTurn();
      if (!walOver()) return;
      recorder.start();
      for (let waited = 0; waited < WAL_GAP_MS && walOver(); waited += 5) await Bun.sleep(5);
    },
    shortUrl: (row: Pick<LinkRow, "tracker" | "short_code" | "is_system">) => {
      const base = row.tracker === "brand" ? ctx.config.brandBaseUrl : ctx.config.shortBaseUrl;
      // The root link is the bare brand domain: GET / there redirects through it.
      return row.is_system ? base : `${base}/${row.short_code}`;
    },
    view(row: LinkRow): LinkView {
      return {
        id: row.id,
        shortCode: row.short_code,
        shortUrl: this.shortUrl(row),
        originalUrl: row.original_url,
        title: row.title,
        description: row.description,
        active: row.active === 1,
        isSystem: row.is_system === 1,
        clickCount: row.click_count,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        expiresAt: row.expires_at,
        hostWarning: hostWarning(row.original_url),
      };
    },
  };
}

export type Links = Awaited<ReturnType<typeof createLinks>>;
