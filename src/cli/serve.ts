import { edenGC } from "bun:jsc";
import type { Config } from "../config";
import { openDb } from "../db/open";
import { migrate } from "../db/migrate";
import { createApp } from "../app";
import { log } from "../http/log";
import { VERSION } from "../version";

export async function serve(config: Config) {
  const db = openDb(config.dataDir);
  const { applied } = migrate(db);
  if (applied.length) log.info("migrations applied", { applied });
  const { app, ctx } = await createApp({ db, config });
  // Building the redirect map leaves its rows and parsed URLs behind: collected before serving.
  Bun.gc(true);
  app.listen({ port: config.port, hostname: config.host });
  log.info("listening", { version: VERSION, url: `http://${config.host}:${config.port}`, publicUrl: config.publicUrl, dataDir: config.dataDir });

  // Every request leaves a little garbage, and JavaScriptCore sizes its heap by the machine's
  // RAM: under a burst of redirects the process grew ~35 MB more before it collected. Collecting
  // the young generation every 100 ms keeps it near its live size (docs/performance.md: no
  // measurable cost in throughput or p99; collecting only past a heap-size threshold did not
  // bring RSS down, as the garbage is mostly native request memory the heap size leaves out).
  const young = setInterval(edenGC, 100);
  const sweep = setInterval(() => ctx.accounts.deleteExpiredSessions(), 3_600_000);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    clearInterval(sweep);
    clearInterval(young);
    // Stop accepting; in-flight requests finish before the promise resolves.
    await app.server?.stop(false);
    for (const hook of ctx.shutdownHooks) await hook();
    db.close();
    log.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}
