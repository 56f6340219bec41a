// The event log's upkeep (issue 26): retention. Events older than EVENT_RETENTION_DAYS go, and
// with them finished webhook deliveries of that age (pending ones stay whatever their age: the
// outbox never drops an undelivered event). Every instance runs it; the deletes are idempotent.
import type { AppContext } from "../context";
import { DAY_MS } from "../shared/time";
import { eventsStore } from "./store";
import { webhooksStore } from "../webhooks/store";
import { log } from "../http/log";

const PRUNE_EVERY_MS = 60 * 60 * 1000;

export function startEventRetention(ctx: AppContext) {
  const events = eventsStore(ctx.db);
  const hooks = webhooksStore(ctx.db);
  const prune = async () => {
    const before = new Date(Date.now() - ctx.config.eventRetentionDays * DAY_MS).toISOString();
    try {
      const gone = (await events.prune(before)) + (await hooks.pruneFinished(before));
      if (gone) log.info("event log retention", { removed: gone, before });
    } catch (e) {
      log.error("event log retention failed", { error: String(e) });
    }
  };
  // Not at start: a start-up must not wait on (or compete with) a large first delete.
  const timer = setInterval(prune, PRUNE_EVERY_MS);
  timer.unref?.();
  ctx.shutdownHooks.push(() => clearInterval(timer));
  return { prune };
}
