import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { VERSION } from "../version";
import { Health, PublicConfig } from "./schema";
import { defineOperations } from "../openapi/registry";
import { healthStore } from "./store";
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

export function healthRoutes(ctx: AppContext, recorder: Pick<ClickRecorder, "stats">) {
  const store = healthStore(ctx.db);
  const publicConfig = publicConfigOf(ctx);

  return new Elysia({ prefix: "/api" })
    .get("/health", async ({ set }) => {
      const db = (await store.ping()) ? "ok" : "unavailable";
      if (db !== "ok") set.status = 503;
      set.headers["cache-control"] = "no-store";
      // details.clicks: the click writer's backlog, its high-water mark and the clicks whose rows
      // were not kept under overload (still counted per link): what an operator needs to see
      // that the writer keeps up (docs/decisions.md, "Overload").
      return { status: db === "ok" ? "ok" : "degraded", version: VERSION, db, details: { clicks: recorder.stats() } };
    })
    .get("/config", () => publicConfig);
}

export const healthOperations = defineOperations({ tag: "Instance", auth: "none" }, [
  {
    method: "GET",
    path: "/api/health",
    summary: "Health check",
    description: "200 when the database answers; 503 with status `degraded` when it does not.",
    responses: { 200: Health, 503: { description: "The database does not answer", schema: Health } },
  },
  { method: "GET", path: "/api/config", summary: "This instance's public settings", responses: { 200: PublicConfig } },
]);
