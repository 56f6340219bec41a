import { Elysia } from "elysia";
import type { Config } from "./config";
import type { Database } from "./db/database";
import { createContext, type AppContext } from "./context";
import { AppError, notFound } from "./shared/errors";
import { errorHandler } from "./http/errors";
import { allowedMethods } from "./http/methods";
import { malformedPaths, originGuard, securityHeaders } from "./http/security";
import { visitorPages } from "./redirects/visitorPages";
import { MAX_REQUEST_BYTES, bodyLimit } from "./http/bodyLimit";
import { authPlugin, bearerKeys } from "./http/auth";
import { apiRateLimit, heavyCallLimit } from "./http/rateLimit";
import { spaPlugin } from "./http/spa";
import { compression } from "./http/compression";
import { accountRoutes } from "./accounts/routes";
import { healthRoutes } from "./health/routes";
import { createLinks } from "./links/service";
import { linkRoutes } from "./links/routes";
import { smartLinkRoutes } from "./smart/routes";
import { tagRoutes } from "./tags/routes";
import { BULK_PATH, IMPORT_PATH, bulkLinkRoutes } from "./links/bulkRoutes";
import { BULK_MAX_VALUES } from "./links/schema";
import { multiSegmentRedirects, redirectRoutes, redirectServeRoutes, rootRoute } from "./redirects/routes";
import { topicRoutes } from "./topics/routes";
import { inviteRoutes } from "./invites/routes";
import { planRoutes } from "./plans/routes";
import { notificationRoutes } from "./notifications/routes";
import { titleRoutes } from "./titles/routes";
import { vendorRoutes } from "./vendor/routes";
import { apiKeyRoutes } from "./apikeys/routes";
import { qrStyleRoutes } from "./qrstyles/routes";
import { openApiRoutes } from "./openapi/routes";
import { OPERATIONS } from "./openapi/operations";
import { keyReachTable } from "./apikeys/access";
import { webhookRoutes } from "./webhooks/routes";
import { startWebhookSender } from "./webhooks/sender";
import { startEventRetention } from "./events/service";
import { eventFeed } from "./events/feed";
import { startLiveHub } from "./events/live";
import { eventRoutes } from "./events/routes";
import { publicStatsRoutes } from "./publicstats/routes";


/**
 * Builds the whole HTTP app: /api features first, redirects next, the web app last.
 * `maxClickBacklog`: the click recorder's bound (tests lower it to reach overload quickly).
 */
/**
 * A route group added without its route types: nothing reads the app's own type (there is no
 * typed client), and the link groups' types made the chain's type more than TypeScript can
 * represent (TS2590). Each group's handlers are still typed inside its own module.
 */
const untyped = (group: unknown) => group as Elysia;

export async function createApp({ db, config, maxClickBacklog }: { db: Database; config: Config; maxClickBacklog?: number }) {
  const ctx: AppContext = createContext(db, config);
  const bearer = bearerKeys(ctx);
  // API keys reach what each operation declares beside its route (src/apikeys/access.ts).
  const auth = authPlugin(ctx, bearer, keyReachTable(OPERATIONS));
  const heavy = heavyCallLimit(ctx, bearer);
  const links = await createLinks(ctx, { maxClickBacklog });
  // The event log's consumers that run on their own: retention, the webhook outbox's sender and
  // the live updates, the last two woken by the feed when events are committed (src/events/feed.ts).
  const feed = eventFeed(config);
  const events = { retention: startEventRetention(ctx), webhooks: startWebhookSender(ctx, feed), live: startLiveHub(ctx, feed), feed };
  ctx.shutdownHooks.push(() => feed.stop());
  // Paths no route serves go to the web app, after a look for an imported multi-segment code.
  const spa = await spaPlugin(multiSegmentRedirects(ctx, links));
  // Static pages for visitors (no app bundle): a path that cannot be decoded gets the 404 one.
  const pages = visitorPages(config.appName);
  // Redirect routes hand app pages and unknown codes to the web app through this.
  const webPage = (request: Request) => spa.handle(request);
  // Bun.serve's router sends live short links straight to the redirect (the hot path); the
  // rest of those paths fall back to this app. Only a listening server uses it (see listen).
  const routes = redirectServeRoutes(ctx, links, (request) => app.fetch(request));
  const allowedFor = allowedMethods(() => app.routes);
  // An API path nothing serves is a 404; a served path asked with another method is a 405.
  const apiNotFound = ({ request }: { request: Request }) => {
    const allow = allowedFor(new URL(request.url).pathname);
    if (allow.length > 0 && !allow.includes(request.method)) {
      throw new AppError("METHOD_NOT_ALLOWED", `${request.method} is not allowed here; this path takes ${allow.join(", ")}`, undefined, { allow: allow.join(", ") });
    }
    throw notFound("No such API route");
  };
  const app = new Elysia({ serve: { maxRequestBodySize: MAX_REQUEST_BYTES, routes } })
    .use(errorHandler)
    .use(securityHeaders(ctx))
    // JSON and CSV answers, gzip or br when the client accepts it (src/http/compression.ts).
    .use(compression(ctx))
    .use(originGuard(ctx))
    // Per API key and per anonymous address, before any route's sign-in check (README).
    .use(apiRateLimit(ctx, bearer))
    // Per user, for bulk, import, exports and analytics (README "Quotas").
    .use(heavy.plugin)
    .use(malformedPaths(ctx, () => pages.notFound.respond()))
    // JSON bodies everywhere; the link import alone takes a CSV file (its own 10 MB cap).
    .use(bodyLimit(ctx, [IMPORT_PATH], heavy.gate, { [BULK_PATH]: BULK_MAX_VALUES }))
    .use(healthRoutes(ctx, links))
    .use(accountRoutes(ctx, auth, (sessionId) => events.live.endSession(sessionId)))
    // Only 4-segment paths ending in /titles reach it (titles.test.ts checks the neighbours).
    .use(titleRoutes(ctx, auth))
    .use(topicRoutes(ctx, auth))
    .use(inviteRoutes(ctx, auth))
    .use(planRoutes(ctx, auth))
    .use(notificationRoutes(ctx, auth))
    .use(apiKeyRoutes(ctx, auth))
    .use(qrStyleRoutes(ctx, auth))
    .use(webhookRoutes(ctx, auth, events.webhooks))
    .use(eventRoutes(ctx, auth, events.live))
    .use(publicStatsRoutes(ctx, auth, () => pages.notFound.respond()))
    .use(vendorRoutes())
    .use(untyped(bulkLinkRoutes(ctx, auth, links)))
    .use(untyped(linkRoutes(ctx, auth, links, "main")))
    .use(untyped(linkRoutes(ctx, auth, links, "brand")))
    .use(untyped(tagRoutes(auth, links.tags, () => links.recorder.flush())))
    // Smart links (issue 24): settings and simulator on both trackers, UTM templates.
    .use(untyped(smartLinkRoutes(ctx, auth, links)))
    // /{code}, /l/{code}, /r/{code}, /api/links/redirect/{code}; app pages pass through to the SPA.
    .use(redirectRoutes(ctx, links, webPage))
    // /api/openapi.json and the reference page /api/docs (a screen of the web app).
    .use(openApiRoutes(ctx, webPage))
    // Feature routes are mounted above this line.
    // GET is listed apart because the router prefers a method match over ALL, and the web
    // app's GET /* would otherwise answer unknown API paths with HTML.
    .get("/api/*", apiNotFound)
    .all("/api/*", apiNotFound)
    // ALL does not take OPTIONS in Elysia's router: listed so it gets the 405 too.
    .options("/api/*", apiNotFound)
    .use(spa)
    // Registered after the web app so its GET / wins: the brand domain's root redirect.
    .use(rootRoute(ctx, links, webPage));
  return { app, ctx, clicks: links.recorder, events };
}
