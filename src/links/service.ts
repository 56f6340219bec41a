// The short-link feature's state, built once per app: the store, the in-memory code → link
// map the redirects read, and the click recorder. Every write goes through here so the map
// stays exact (a changed destination is used by the very next redirect).
import type { AppContext } from "../context";
import { legacy } from "../db/legacy";
import { ClickRecorder } from "../analytics/recorder";
import { linksStore, type LinkRow, type RedirectRow } from "./store";
import type { LinkView } from "./schema";
import { hostWarning } from "./hostWarning";

export type CachedLink = {
  id: number;
  /** The stored destination, parsed and re-serialised: ASCII-only, safe for a Location header. */
  href: string;
  active: boolean;
  expiresMs: number | null;
};

function toCached(r: Pick<RedirectRow, "id" | "original_url" | "active" | "expires_at">): CachedLink | null {
  let href: string;
  try {
    href = new URL(r.original_url).href;
  } catch {
    return null;
  }
  return { id: r.id, href, active: r.active === 1, expiresMs: r.expires_at ? Date.parse(r.expires_at) : null };
}

export function createLinks(ctx: AppContext, opts: { maxClickBacklog?: number | undefined } = {}) {
  const store = linksStore(legacy(ctx.db));
  store.syncRootUrl(ctx.config.rootRedirectUrl);

  // Clicks are written (and the WAL checkpointed) by a worker with its own connection.
  const recorder = new ClickRecorder(legacy(ctx.db), { ipStorage: ctx.config.ipStorage, geoipDb: ctx.config.geoipDb, maxBacklog: opts.maxClickBacklog });
  // Every captured click is written and the worker closed before (in serve) the database closes.
  ctx.shutdownHooks.push(() => recorder.stop());

  const byCode = new Map<string, CachedLink>();
  for (const r of store.allForRedirect()) {
    const c = toCached(r);
    if (c) byCode.set(r.short_code, c);
  }

  const ownHosts = [...new Set([ctx.config.appHost, ctx.config.shortDomain, ctx.config.brandDomain])];

  return {
    store,
    recorder,
    ownHosts,
    lookup: (code: string) => byCode.get(code),
    /** Keeps the redirect map exact after a create or an edit (old code removed when renamed). */
    remember(row: LinkRow, previousCode?: string) {
      if (previousCode && previousCode !== row.short_code) byCode.delete(previousCode);
      const c = toCached(row);
      if (c) byCode.set(row.short_code, c);
      else byCode.delete(row.short_code);
    },
    forget: (code: string) => byCode.delete(code),
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

export type Links = ReturnType<typeof createLinks>;
