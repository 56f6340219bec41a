// The contract of GET /api/config and GET /api/health, shared with the web app (which may
// import only schema.ts files and src/shared/ from the server). publicConfigOf (routes.ts)
// builds PublicConfig from Config, so a setting whose type drifts fails to compile there.
import * as v from "valibot";

/** What the web app needs to know about this instance; nothing secret. */
export const PublicConfig = v.object({
  appName: v.string(),
  brandName: v.string(),
  publicUrl: v.string(),
  shortDomain: v.string(),
  brandDomain: v.string(),
  shortBaseUrl: v.string(),
  brandBaseUrl: v.string(),
  freeTopicLimit: v.number(),
  allowSelfUpgrade: v.boolean(),
  registration: v.picklist(["open", "closed"]),
  operatorName: v.nullable(v.string()),
  operatorAddress: v.nullable(v.string()),
  version: v.string(),
});
export type PublicConfig = v.InferOutput<typeof PublicConfig>;

/**
 * GET /api/health: 200 while this instance serves redirects (status "degraded" when the
 * database does not answer: writes fail meanwhile); 503 only while its redirect map is behind a
 * database that answers (PostgreSQL, several instances: it is catching up).
 */
export const Health = v.object({
  status: v.picklist(["ok", "degraded"]),
  version: v.string(),
  db: v.picklist(["ok", "unavailable"]),
  /** "stale": the map may be missing changes (listener lost or silent); still served while it catches up. */
  redirects: v.picklist(["ok", "stale"]),
  /**
   * The click writer's counters (backlog, high-water mark, clicks kept only as counts), and the
   * database's bytes on disk: file, WAL and the free space left (null where not known here).
   */
  details: v.object({
    clicks: v.record(v.string(), v.number()),
    storage: v.object({ databaseBytes: v.nullable(v.number()), walBytes: v.nullable(v.number()), freeDiskBytes: v.nullable(v.number()) }),
  }),
});
