// The hot path: /{code}, /l/{code}, /r/{code}, /api/links/redirect/{code}, and GET / on the
// brand domain. One Map lookup, one 302; the click is buffered and written later.
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { BASE_SECURITY_HEADERS, clientAddress } from "../http/security";
import { visitorPages } from "./visitorPages";
import { NO_PLACE, VISITOR_COOKIE, trustedPlace, visitorIdOf } from "./visitor";
import { isReserved } from "../shared/reserved";
import { CODE_MAX, CODE_PATTERN, IMPORTED_CODE_PATTERN, ROOT_CODE } from "../links/schema";
import type { CachedLink, Links } from "../links/service";
import { smartRedirects, type RedirectSource as Source } from "../smart/redirect";
import { defineOperations } from "../shared/apiOperations";

export const VISITOR_TTL_S = 86_400;

/**
 * A UUIDv7: the mint time first (so ids sort by it), then 74 random bits. Sorted ids put a new
 * visitor's entry at the end of the click writer's visitor index rather than on a random page
 * (migrations/0003). The time says nothing the cookie's own expiry does not.
 */
export const newVisitorId = () => Bun.randomUUIDv7();

type Server = { requestIP?: (r: Request) => { address: string } | null } | null | undefined;
type WebPage = (request: Request) => Response | Promise<Response>;

const MAX_HEADER = 1024;
const cap = (s: string | null, n = MAX_HEADER) => (s ? s.slice(0, n) : null);

/**
 * The request's Host, lower-cased, read once per request: the lookup and the cookie's check both
 * ask (a header read and a copy each, ~5 % of the request thread under load in session 11's
 * profile). One entry: nothing awaits between the two.
 */
let hostFor: Request | null = null;
let host = "";
const hostOf = (request: Request) => {
  if (hostFor !== request) {
    host = (request.headers.get("host") ?? "").toLowerCase();
    hostFor = request;
  }
  return host;
};

const home = () => new Response(null, { status: 302, headers: { ...BASE_SECURITY_HEADERS, location: "/", "cache-control": "no-store" } });

/** The redirect logic shared by the code routes and the brand-domain root. */
function redirector(ctx: AppContext, links: Links) {
  const known = new Set(links.ownHosts);
  const brandRootActive = ctx.config.brandDomain !== ctx.config.appHost;
  // The Set-Cookie line, written out once: the id is [0-9a-f-] only, so nothing needs escaping.
  const cookieTail = `; Path=/; Max-Age=${VISITOR_TTL_S}; HttpOnly; SameSite=Lax${ctx.config.secureCookies ? "; Secure" : ""}`;

  // Unknown codes get the redirect page (home after 2000 ms) with a 404 status; expired and
  // inactive links a 410 page. Small pages of their own: a visitor never loads the app for them.
  const pages = visitorPages(ctx.config.appName);
  const unknown = () => pages.unknown.respond();

  /**
   * clientAddress, asked at most once per request: a smart link's rule on the visitor's country
   * asks it, then the click asks it again, and the peer's address (Bun's requestIP) was ~7 % of
   * the request thread in issue 24's benchmark. One entry: the redirect never awaits between the two.
   */
  let askedFor: Request | null = null;
  let asked: ReturnType<typeof clientAddress> = { ip: null, viaTrustedProxy: false };
  function addressOf(request: Request, server: Server) {
    if (askedFor !== request) {
      asked = clientAddress(ctx, request, server);
      askedFor = request;
    }
    return asked;
  }

  function redirect(code: string, request: Request, server: Server, source: Source) {
    // Served from the map also while it catches up on PostgreSQL (links/follow.ts): the
    // database away, nothing can change; a listener lost, the map of a moment ago is far more
    // often right than a 503 from every instance at once, and health reports it (issue 22).
    // The host's tracker first: `promo` on the brand host and on the app's host can be two links.
    const link = links.lookup(code, hostOf(request));
    return link ? serve(link, request, server, source) : null;
  }

  function serve(link: CachedLink, request: Request, server: Server, source: Source) {
    if (!link.active) return pages.inactive.respond();
    if (link.expiresMs !== null && link.expiresMs <= Date.now()) return pages.expired.respond();
    // A plain link has no smart settings: this one check is all issue 24 costs it.
    if (link.smart !== undefined) return smartPaths.redirect(link, link.smart, request, server, source);
    return send(link, link.href, null, request, server, source);
  }

  /**
   * The 302 and the click. `route`: the smart rule or split destination that chose `href`
   * (null for a plain link); `presetVisitor`: a visitor id minted by a sticky split, set as the
   * cookie when the visitor had none.
   */
  function send(link: CachedLink, href: string, route: string | null, request: Request, server: Server, source: Source, presetVisitor?: string) {
    // Complete here (security headers included): the fast lane below answers without the framework.
    const headers: Record<string, string> = { ...BASE_SECURITY_HEADERS, location: href, "cache-control": "private, no-store", "referrer-policy": "unsafe-url" };
    // HEAD (link unfurlers, uptime checks) follows the redirect but is not a click.
    if (request.method === "GET") {
      const h = request.headers;
      const knownHost = known.has(hostOf(request));
      let visitorId = visitorIdOf(request);
      let newVisitor = false;
      // An unknown Host gets no cookie: we never set state for a name we do not serve.
      if (visitorId === null && knownHost) {
        visitorId = presetVisitor ?? newVisitorId();
        headers["set-cookie"] = `${VISITOR_COOKIE}=${visitorId}${cookieTail}`;
        newVisitor = true;
      }
      // The one reading of the client address the sign-in limits use too (http/security.ts).
      const { ip, viaTrustedProxy } = addressOf(request, server);
      const place = viaTrustedProxy ? trustedPlace(h) : NO_PLACE;
      const referrer = cap(h.get("referer"));
      const url = request.url;
      const qr = url.includes("qr=1") && new URL(url).searchParams.get("qr") === "1";
      // Never waits: a writer far behind keeps only the count of this click (analytics/recorder.ts).
      links.recorder.capture({
        linkId: link.id,
        at: Date.now(),
        userAgent: cap(h.get("user-agent")),
        referrer,
        ip,
        visitorId,
        newVisitor,
        source: source === "safari-direct" ? "safari-direct" : qr ? "qr" : referrer ? "referrer" : "direct",
        country: place.country,
        city: place.city,
        route,
      });
    }
    return new Response(null, { status: 302, headers });
  }

  const smartPaths = smartRedirects(ctx, links, {
    send,
    proxyPlace(request, server) {
      const { ip, viaTrustedProxy } = addressOf(request, server);
      const place = viaTrustedProxy ? trustedPlace(request.headers) : NO_PLACE;
      return { ip, country: place.country, city: place.city, trusted: viaTrustedProxy };
    },
    gone: () => pages.limit.respond(),
    visitorId: visitorIdOf,
    newVisitorId,
  });

  /** The password form's POST to a short link's own address. */
  const unlock = async (code: string, request: Request, server: Server, body: unknown) => {
    if (code.length > CODE_MAX || !CODE_PATTERN.test(code)) return unknown();
    const link = links.lookup(code, hostOf(request)) ?? (await links.lookupMissing(code, hostOf(request)));
    if (!link) return unknown();
    return smartPaths.unlock(link, request, server, body);
  };

  const byCode = async (code: string, request: Request, server: Server, source: Source = "path") => {
    if (code === "" || code === "l" || code === "r") return home();
    if (code.length > CODE_MAX || !CODE_PATTERN.test(code)) return unknown();
    const now = redirect(code, request, server, source);
    if (now) return now;
    // Not in the map. Several instances: perhaps created on another a moment ago (missLookup.ts).
    const late = await links.lookupMissing(code, hostOf(request));
    return late ? serve(late, request, server, source) : unknown();
  };

  const brandRoot = (request: Request, server: Server) => {
    if (!brandRootActive || hostOf(request) !== ctx.config.brandDomain) return null;
    return redirect(ROOT_CODE, request, server, "path");
  };

  /**
   * An imported multi-segment code (Shlink's "promo/spring"), at the path the source served it
   * from: only paths no route matched reach here (the web app's fallback), so a plain link's
   * redirect never passes this way. GET and HEAD alone; the first part is never an app word.
   */
  const byPath = (request: Request, server: Server): Response | null => {
    if (request.method !== "GET" && request.method !== "HEAD") return null;
    const code = new URL(request.url).pathname.slice(1);
    if (!code.includes("/") || code.length > CODE_MAX || !IMPORTED_CODE_PATTERN.test(code) || isReserved(code.split("/")[0]!)) return null;
    return redirect(code, request, server, "path");
  };

  return { byCode, brandRoot, redirect, byPath, unlock };
}

/** The web app's fallback asks this first (src/app.ts): imported multi-segment codes redirect. */
export function multiSegmentRedirects(ctx: AppContext, links: Links) {
  const { byPath } = redirector(ctx, links);
  return (request: Request, server: unknown) => byPath(request, server as Server);
}

type Fallback = (request: Request) => Response | Promise<Response>;

/**
 * The hot path's fast lane, for Bun.serve's own router: a live link's redirect is answered
 * here without the framework's per-request work (context, hooks, its own routing), which is
 * about a third of a redirect's CPU. Anything else (app pages such as /auth, unknown codes,
 * other methods) goes to `fallback`, the full app, and is answered exactly as before, so the
 * Elysia routes above stay the single description of every case.
 */
export function redirectServeRoutes(ctx: AppContext, links: Links, fallback: Fallback) {
  const { redirect } = redirector(ctx, links);
  const lane = (source: "path" | "safari-direct", single = false) => {
    const handle = (request: Bun.BunRequest, server: Bun.Server<unknown>) => {
      const code = request.params.code ?? "";
      if (single && isReserved(code)) return fallback(request);
      return (code.length <= CODE_MAX && CODE_PATTERN.test(code) && redirect(code, request, server, source)) || fallback(request);
    };
    return { GET: handle, HEAD: handle };
  };
  return {
    "/:code": lane("path", true),
    "/l/:code": lane("path"),
    "/r/:code": lane("path"),
    "/api/links/redirect/:code": lane("safari-direct"),
  };
}

export function redirectRoutes(ctx: AppContext, links: Links, webPage: WebPage) {
  const { byCode, unlock } = redirector(ctx, links);
  return new Elysia({ name: "redirects", seed: ctx.instanceId })
    .get("/:code", ({ params, request, server }) => {
      // Single-segment app pages (/auth, /pricing…) share this shape: hand them to the web app.
      if (isReserved(params.code) && params.code !== "l" && params.code !== "r") return webPage(request);
      return byCode(params.code, request, server);
    })
    .get("/l/:code", ({ params, request, server }) => byCode(params.code, request, server))
    .get("/r/:code", ({ params, request, server }) => byCode(params.code, request, server))
    .get("/api/links/redirect/:code", ({ params, request, server }) => byCode(params.code, request, server, "safari-direct"))
    // A protected link's password page posts back to the link's own address (src/smart/page.ts).
    .post("/:code", ({ params, request, server, body }) => unlock(params.code, request, server, body))
    .post("/l/:code", ({ params, request, server, body }) => unlock(params.code, request, server, body))
    .post("/r/:code", ({ params, request, server, body }) => unlock(params.code, request, server, body))
    // The Safari path shows the password page too, so its form posts there (src/http/bodyLimit.ts reads it).
    .post("/api/links/redirect/:code", ({ params, request, server, body }) => unlock(params.code, request, server, body));
}

/**
 * GET / : on BRAND_DOMAIN (when it differs from the app's host) it redirects through the root
 * link; everywhere else it is the web app. Mounted after the web app so it wins over its "/".
 */
export function rootRoute(ctx: AppContext, links: Links, webPage: WebPage) {
  const { brandRoot } = redirector(ctx, links);
  return new Elysia({ name: "redirect-root", seed: ctx.instanceId }).get("/", ({ request, server }) => brandRoot(request, server) ?? webPage(request));
}

export const redirectOperations = defineOperations({ tag: "Redirects", auth: "none" }, [
  {
    method: "GET",
    path: "/api/links/redirect/:code",
    summary: "Follow a short link",
    description:
      "The same redirect as /{code}, counted as a direct open (the path Safari's link previews use). An unknown code gets a page that returns home (404); an expired or inactive link a 410 page.",
    params: { code: "The short code" },
    responses: {
      302: { description: "To the link's destination", headers: { Location: "The destination URL" } },
      404: { description: "No such link: an HTML page that returns home", media: { type: "text/html" } },
      410: { description: "The link has expired or is inactive: an HTML page", media: { type: "text/html" } },
    },
  },
]);
