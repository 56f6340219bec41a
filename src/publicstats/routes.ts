// Public stats pages (issue 26). The owner publishes a link's stats (either tracker) at an
// unguessable address, copies it, and revokes it (or publishes again: a new address, the old one
// stops working): /api/stats/:linkId/public. Anyone with the address sees /public/stats/TOKEN,
// a light page of aggregates (./page.ts), cached briefly and limited per address.
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import type { AuthPlugin } from "../http/auth";
import { notFound } from "../shared/errors";
import { staticPageHeaders } from "../http/headers";
import { AttemptLimiter } from "../http/rateLimit";
import { clientIp } from "../http/security";
import { rowId } from "../db/ids";
import { defineOperations } from "../shared/apiOperations";
import { visitorPageHtml } from "../redirects/visitorPages";
import { statsPageHtml } from "./page";
import { PUBLIC_STATS_PREFIX, PublicStatsView, TOKEN_PATTERN } from "./schema";
import { publicStatsStore } from "./store";

/** Days the page's chart covers. */
export const CHART_DAYS = 30;
/** Pages kept in memory at most (the oldest go first). */
const CACHE_MAX = 1_000;

const newToken = () => Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url");

type Cached = { body: Uint8Array<ArrayBuffer>; headers: Record<string, string>; until: number };

export function publicStatsRoutes(ctx: AppContext, auth: AuthPlugin, notFoundPage: () => Response) {
  const store = publicStatsStore(ctx.db);
  const { config } = ctx;
  const cache = new Map<string, Cached>();
  const limiter = config.publicStatsRateLimit > 0 ? new AttemptLimiter(config.publicStatsRateLimit, 60_000) : null;
  const urlOf = (token: string) => `${config.publicUrl}${PUBLIC_STATS_PREFIX}${token}`;
  const view = (linkId: number, token: string | null, at: string | null): PublicStatsView => ({ linkId, published: token !== null, url: token ? urlOf(token) : null, publishedAt: token ? at : null });

  const tooMany = (waitMs: number) => {
    const html = visitorPageHtml(config.appName, { heading: "Too many requests", message: "This page was asked for too often from your network. Please try again in a minute." });
    return new Response(html, { status: 429, headers: { ...staticPageHeaders(html), "retry-after": String(Math.max(1, Math.ceil(waitMs / 1000))) } });
  };

  async function render(token: string): Promise<Cached | null> {
    const hit = cache.get(token);
    if (hit && hit.until > Date.now()) return hit;
    cache.delete(token);
    const link = await store.byToken(token);
    if (!link) return null;
    const since = new Date(Date.now() - (CHART_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
    const f = await store.figures(link.id, since);
    const byDay = new Map(f.days.map((d) => [d.day, d.count]));
    const days = [...Array(CHART_DAYS)].map((_, i) => {
      const day = new Date(Date.now() - (CHART_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10);
      return { day, count: byDay.get(day) ?? 0 };
    });
    const base = link.tracker === "brand" ? config.brandBaseUrl : config.shortBaseUrl;
    const html = statsPageHtml({ appName: config.appName, title: link.title, shortUrl: `${base}/${link.short_code}`, clicks: link.clicks, unique: f.unique, days, countries: f.countries, devices: f.devices, referrers: f.referrers });
    const seconds = Math.round(config.publicStatsCacheMs / 1000);
    const page: Cached = {
      body: new TextEncoder().encode(html),
      headers: {
        ...staticPageHeaders(html),
        "cache-control": seconds > 0 ? `public, max-age=${seconds}` : "no-store",
        // The token is the page's only secret: never sent on to the sites the page names.
        "referrer-policy": "no-referrer",
      },
      until: Date.now() + config.publicStatsCacheMs,
    };
    if (config.publicStatsCacheMs > 0) {
      if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
      cache.set(token, page);
    }
    return page;
  }

  const owned = (raw: string) => rowId(raw) ?? 0;

  return new Elysia()
    .get(`${PUBLIC_STATS_PREFIX}:token`, async ({ params, request, server }) => {
      if (limiter) {
        const ip = clientIp(ctx, request, server);
        if (ip) {
          const r = limiter.hit(ip);
          if (!r.ok) return tooMany(r.resetMs);
        }
      }
      if (!TOKEN_PATTERN.test(params.token)) return notFoundPage();
      const page = await render(params.token);
      if (!page) return notFoundPage();
      return new Response(page.body, { status: 200, headers: page.headers });
    })
    .use(auth)
    .get(
      "/api/stats/:linkId/public",
      async ({ user, params, set }) => {
        const own = await store.forOwner(owned(params.linkId), user.id);
        if (!own) throw notFound("Link not found");
        set.headers["cache-control"] = "no-store";
        return view(own.id, own.token, own.createdAt);
      },
      { auth: true },
    )
    .post(
      "/api/stats/:linkId/public",
      async ({ user, params }) => {
        const r = await store.publish(owned(params.linkId), user.id, newToken());
        if (!r) throw notFound("Link not found");
        if (r.old) cache.delete(r.old);
        return view(Number(r.row.link_id), r.row.token, r.row.created_at);
      },
      { auth: true },
    )
    .delete(
      "/api/stats/:linkId/public",
      async ({ user, params }) => {
        const id = owned(params.linkId);
        const old = await store.revoke(id, user.id);
        if (old === false) throw notFound("Link not found");
        if (old) cache.delete(old);
        return view(id, null, null);
      },
      { auth: true },
    );
}

const LINK = { linkId: "The link's id (either tracker)" };

export const publicStatsOperations = defineOperations({ tag: "Public stats pages", auth: "user", keyArea: "links" }, [
  {
    method: "GET",
    path: "/api/stats/:linkId/public",
    summary: "Whether a link's stats are published, and where",
    params: LINK,
    responses: { 200: PublicStatsView },
  },
  {
    method: "POST",
    path: "/api/stats/:linkId/public",
    summary: "Publish a link's stats",
    description:
      `Makes a new unguessable address ${PUBLIC_STATS_PREFIX}TOKEN showing the link's aggregate stats (clicks per day for ${CHART_DAYS} days, ` +
      "countries, devices, referrer hosts; never an address or a single click). Publishing again replaces the address: the old one stops working.",
    params: LINK,
    responses: { 200: PublicStatsView },
  },
  {
    method: "DELETE",
    path: "/api/stats/:linkId/public",
    summary: "Stop publishing a link's stats",
    description: "The address answers 404 from now on (a copy a browser or proxy cached may show for up to PUBLIC_STATS_CACHE_SECONDS).",
    params: LINK,
    responses: { 200: PublicStatsView },
  },
]);
