import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { VERSION } from "../version";
import { Health, PublicConfig } from "./schema";
import { defineOperations } from "../shared/apiOperations";
import { freeDisk, healthStore } from "./store";
import { log } from "../http/log";
import type { ClickRecorder } from "../analytics/recorder";

/** What the web app needs to know about this instance; nothing secret. */
function publicConfigOf(ctx: AppContext): PublicConfig {
  const c = ctx.config;
  return {
    appName: c.appName,
    brandName: c.brandName,
    publicUrl: c.publicUrl,
    shortDomain: c.shortDomain,
    brandDomain: c.brandDomain,
    shortBaseUrl: c.shortBaseUrl,
    brandBaseUrl: c.brandBaseUrl,
    freeTopicLimit: c.freeTopicLimit,
    allowSelfUpgrade: c.allowSelfUpgrade,
    registration: c.registration,
    operatorName: c.operatorName,
    operatorAddress: c.operatorAddress,
    version: VERSION,
  };
}

/** A database that does not answer a ping within this is "unavailable" (a check must not hang). */
const PING_MS = 1_000;

export function healthRoutes(ctx: AppContext, links: { recorder: Pick<ClickRecorder, "stats">; isStale(): boolean }) {
  const store = healthStore(ctx.db);
  const publicConfig = publicConfigOf(ctx);
  watchDisk(ctx);

  return new Elysia({ prefix: "/api" })
    .get("/health", async ({ set }) => {
      const db = (await store.ping(PING_MS)) ? "ok" : "unavailable";
      const redirects = links.isStale() ? "stale" : "ok";
      // The redirects are always served from the map. 503 only while the map is behind a
      // database that answers: the other instances may be current, and this one is catching up
      // (a second or two), so a load balancer prefers them meanwhile. With the database away
      // every instance is in the same state and writes fail on all of them (503 + Retry-After):
      // 200, so a balancer keeps every instance for the redirects (README, "More than one server").
      if (redirects === "stale" && db === "ok") set.status = 503;
      set.headers["cache-control"] = "no-store";
      // details.clicks: the click writer's backlog, its high-water mark and the clicks whose rows
      // were not kept under overload (still counted per link): what an operator needs to see
      // that the writer keeps up (docs/decisions.md, "Overload").
      const status = db === "ok" && redirects === "ok" ? "ok" : "degraded";
      return { status, version: VERSION, db, redirects, details: { clicks: links.recorder.stats(), storage: await store.storage(ctx.config.dataDir) } };
    })
    .get("/config", () => publicConfig);
}

/** How often the free space of DATA_DIR's disk is looked at, and the warning repeated while low. */
const DISK_CHECK_MS = 60_000;
const DISK_WARN_EVERY_MS = 10 * 60_000;

/**
 * A warning in the log while DATA_DIR's disk has less than DISK_WARN_MB free (SQLite: the
 * database lives there; a full disk stops sign-in, link creation and clicks), at start and then
 * every ten minutes until there is room again.
 */
function watchDisk(ctx: AppContext) {
  if (ctx.config.diskWarnBytes <= 0 || ctx.config.databaseUrl) return;
  let warnedAt = 0;
  const check = () => {
    const free = freeDisk(ctx.config.dataDir);
    if (free === null || free >= ctx.config.diskWarnBytes) {
      warnedAt = 0;
      return;
    }
    if (Date.now() - warnedAt < DISK_WARN_EVERY_MS) return;
    warnedAt = Date.now();
    log.warn("disk space low", { dataDir: ctx.config.dataDir, freeMB: Math.floor(free / 1048576), warnBelowMB: Math.floor(ctx.config.diskWarnBytes / 1048576) });
  };
  check();
  const timer = setInterval(check, DISK_CHECK_MS);
  timer.unref();
  ctx.shutdownHooks.push(() => clearInterval(timer));
}

export const healthOperations = defineOperations({ tag: "Instance", auth: "none" }, [
  {
    method: "GET",
    path: "/api/health",
    summary: "Health check",
    description:
      "Redirects are always served from this instance's map. 200 with status `ok` when the database answers and the map is current; 200 with status `degraded` when the database does not answer (`db: unavailable`: redirects are served, writes answer 503 with Retry-After); 503 only while the map is behind a database that answers (`redirects: stale`, PostgreSQL with several instances: this instance is catching up, a load balancer should prefer the others).",
    responses: { 200: Health, 503: { description: "The redirect map is catching up while the database answers", schema: Health } },
  },
  {
    method: "GET",
    path: "/api/config",
    summary: "This instance's public settings",
    description: "What the web app needs before sign-in: the instance's name, its domains and base URLs, who may sign up, the free plan's limits and the operator's details.",
    responses: { 200: PublicConfig },
  },
]);
