// The route list comes from the app itself (createApp's router), not from a list kept here:
// a route mounted tomorrow is attacked by the suite the day it lands.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { openDatabase } from "../../src/db/connect";
import { createApp } from "../../src/app";

export type Route = {
  method: string;
  path: string;
  /** The route declares a body schema (so a bad body must be a 4xx, never a handler run). */
  hasBody: boolean;
};

export async function appRoutes(): Promise<Route[]> {
  const dir = mkdtempSync(join(tmpdir(), "threadlink-hostile-routes-"));
  try {
    const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: "error" });
    // A SQLite file whatever the run's backend: only the router is read, never the data.
    const { db } = await openDatabase({ dataDir: config.dataDir, databaseUrl: null });
    const { app, ctx } = await createApp({ db, config });
    const out = app.routes.map((r) => ({
      method: r.method.toUpperCase(),
      path: r.path,
      hasBody: Boolean((r.hooks as { body?: unknown } | undefined)?.body),
    }));
    for (const hook of ctx.shutdownHooks) await hook();
    await db.close();
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
