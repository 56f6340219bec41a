// The route list comes from the app itself (createApp's router), not from a list kept here:
// a route mounted tomorrow is attacked by the suite the day it lands.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { openDb } from "../../src/db/open";
import { migrate } from "../../src/db/migrate";
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
    const db = openDb(config.dataDir);
    migrate(db);
    const { app } = await createApp({ db, config });
    const out = app.routes.map((r) => ({
      method: r.method.toUpperCase(),
      path: r.path,
      hasBody: Boolean((r.hooks as { body?: unknown } | undefined)?.body),
    }));
    db.close();
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
