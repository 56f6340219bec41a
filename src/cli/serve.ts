import { edenGC } from "bun:jsc";
import type { Config } from "../config";
import { openDatabase } from "../db/connect";
import { createApp } from "../app";
import { log } from "../http/log";
import { VERSION } from "../version";
import { where } from "./migrateData";

/**
 * How long requests already received may take to finish once a stop is asked for. Then every
 * connection still open is closed: without a bound, a client holding half-sent requests open
 * kept the process alive until Bun's idle timeout (50 of them held a SIGTERM for 12 s), and
 * orchestrators kill a process that does not stop within their grace period (10 s by default
 * for Docker and systemd), losing buffered clicks.
 */
export const STOP_GRACE_MS = 3_000;

/**
 * Stops listening at once, lets complete requests finish for up to STOP_GRACE_MS, then closes
 * the connections that remain (idle keep-alives, half-sent requests, slow uploads).
 */
export async function stopServing(server: { stop(closeActive?: boolean): Promise<void> } | null | undefined, graceMs = STOP_GRACE_MS) {
  if (!server) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const graceful = server.stop(false).then(() => "stopped" as const);
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), graceMs)));
  const outcome = await Promise.race([graceful, late]);
  clearTimeout(timer);
  if (outcome === "late") {
    log.info("closing connections still open after the grace period", { graceMs });
    await server.stop(true);
  }
}

export async function serve(config: Config) {
  const { db, applied } = await openDatabase(config, { waitMs: config.databaseStartWaitMs });
  if (applied.length) log.info("migrations applied", { applied });
  // The reader thread reads half of the redirect map (src/links/mapPack.ts): started now, its
  // own start-up (a thread, the bundle, a connection) runs beside the app's instead of after it.
  // The map's load collects its garbage itself before serving (src/links/service.ts).
  db.reader?.warm();
  const { app, ctx, clicks, events } = await createApp({ db, config });
  app.listen({ port: config.port, hostname: config.host });
  // The click writer starts now, not with the first click: started by a click, it spent its
  // first ~0.5 s opening the database and the location data, and a kill -9 then lost more than
  // the documented window. After listening, so its start-up runs beside the first requests'.
  clicks.start();
  // The backend actually used: on PostgreSQL DATA_DIR holds only the redirect map's snapshot, so
  // it is not named (the password never logged).
  const backend = config.databaseUrl ? { database: "postgres", at: where(config.databaseUrl) } : { database: "sqlite", dataDir: config.dataDir };
  log.info("listening", { version: VERSION, url: `http://${config.host}:${config.port}`, publicUrl: config.publicUrl, ...backend });

  // Every request leaves a little garbage, and JavaScriptCore sizes its heap by the machine's
  // RAM: under a burst of redirects the process grew ~35 MB more before it collected. Collecting
  // the young generation every 100 ms keeps it near its live size (docs/performance.md: no
  // measurable cost in throughput or p99; collecting only past a heap-size threshold did not
  // bring RSS down, as the garbage is mostly native request memory the heap size leaves out).
  const young = setInterval(edenGC, 100);
  // Every instance sweeps, with no lock among them: one DELETE of rows already past their
  // expiry, so two at once delete each row once between them and a second finds nothing.
  const sweep = setInterval(() => void ctx.accounts.deleteExpiredSessions().catch((e) => log.error("session sweep failed", { error: String(e) })), 3_600_000);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    clearInterval(sweep);
    clearInterval(young);
    // Live update streams never finish by themselves: ended first, so the grace is the requests'.
    events.live.closeAll();
    await stopServing(app.server);
    for (const hook of ctx.shutdownHooks) await hook();
    await db.close();
    log.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}
