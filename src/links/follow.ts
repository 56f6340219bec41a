// N instances on one PostgreSQL: each keeps its own code → link map for the redirects
// (service.ts) and follows the others' link writes through LISTEN/NOTIFY. The trigger of
// migrations/pg/0009 sends [id, previous code] for every insert, update and delete of a link,
// at commit, whoever wrote it (another instance, the CLI, an import); the follower reads those
// links again by id and puts them in the map, usually a few milliseconds after the commit.
//
// PostgreSQL delivers a notification only to a listener connected at the time, so a lost
// listening connection means lost changes: from that moment the map is stale, the redirects
// answer 503 (routes.ts: an old destination, or a deleted link still redirecting, would be
// wrong; a load balancer retries another instance), and once Bun has listened again (it
// reconnects by itself, with backoff) the whole map is read again before redirects resume.
// SQLite runs one instance, whose own writes keep its map exact: no follower there.
import { SQL } from "bun";
import { log } from "../http/log";
import type { RedirectRow } from "./store";

export const LINKS_CHANNEL = "threadlink_links";

/** Links read again per statement (a bulk import notifies once per link). */
const BATCH = 1000;
/** First wait before reading the whole map again after a failure, doubled up to RETRY_MAX_MS. */
const RETRY_MS = 250;
const RETRY_MAX_MS = 5_000;

/** What the follower needs from the map's owner (service.ts). */
export type FollowedMap = {
  /** Puts a link, as it is now, under its current code. */
  put(row: RedirectRow): void;
  /** Removes `code` from the map if it still names link `id` (a rename or a delete). */
  drop(code: string, id: number): void;
  /** Reads every link again into the map. */
  reloadAll(): Promise<void>;
};

export type Follower = {
  /** True while changes may have been missed: redirects must not answer from the map. */
  readonly stale: boolean;
  /** Resolves once every notification received so far is in the map (tests, benchmarks). */
  settled(): Promise<void>;
  stop(): Promise<void>;
};

/**
 * Listens on LINKS_CHANNEL over a connection of its own (a client used for nothing else, so
 * its onclose means exactly "the listening connection was lost"). Resolves once the LISTEN is
 * acknowledged: the caller loads the map after this, so no change can fall between the two.
 */
export async function followLinks(
  url: string,
  /** The links a batch of notifications names, as they are now (the links store's forRedirectByIds). */
  readByIds: (ids: number[]) => Promise<RedirectRow[]>,
  map: FollowedMap,
): Promise<Follower> {
  let stale = false;
  let stopping = false;
  let listening = false;
  /** Bumped at every loss: a reload that began before one must not clear `stale`. */
  let losses = 0;
  let firstListen = true;
  /** id → codes the notifications named (a link renamed twice before a batch ran has two). */
  let pending = new Map<number, Set<string>>();
  /** Every batch and reload runs after the one before it, so an older read never lands last. */
  let chain: Promise<void> = Promise.resolve();
  let recovering = false;

  const enqueue = (task: () => Promise<void>) => {
    chain = chain.then(task, task);
    return chain;
  };

  const flush = async () => {
    if (pending.size === 0 || stale) return;
    const batch = pending;
    pending = new Map();
    const ids = [...batch.keys()];
    try {
      for (let i = 0; i < ids.length; i += BATCH) {
        const part = ids.slice(i, i + BATCH);
        const rows = await readByIds(part);
        const now = new Map(rows.map((r) => [r.id, r]));
        for (const id of part) {
          const row = now.get(id);
          for (const code of batch.get(id)!) if (!row || row.short_code !== code) map.drop(code, id);
          if (row) map.put(row);
        }
      }
    } catch (e) {
      // The database did not answer: what this batch named is unknown, so the map is too.
      log.error("redirect map: reading changed links failed; reloading the whole map", { error: String(e) });
      losses++;
      stale = true;
      recover();
    }
  };

  const onNotify = (payload: string) => {
    let id: number;
    let code: string;
    try {
      [id, code] = JSON.parse(payload) as [number, string];
    } catch {
      return;
    }
    if (!Number.isSafeInteger(id) || typeof code !== "string") return;
    let codes = pending.get(id);
    if (!codes) pending.set(id, (codes = new Set()));
    codes.add(code);
    // One batch per burst: notifications of one commit arrive together, before this runs.
    if (pending.size === 1) void enqueue(flush);
  };

  /** Reads the whole map again, retried with backoff, then serves from it again. */
  const recover = () => {
    if (recovering || stopping) return;
    recovering = true;
    void enqueue(async () => {
      let wait = RETRY_MS;
      while (!stopping) {
        const seen = losses;
        // Changes notified so far are committed: the reload reads them.
        pending = new Map();
        try {
          await map.reloadAll();
          if (seen === losses && listening) {
            stale = false;
            log.info("redirect map reloaded; serving redirects again");
            break;
          }
          // Lost again meanwhile: wait for the listen to come back (it calls recover again).
          if (!listening) break;
        } catch (e) {
          log.error("redirect map: reloading failed", { error: String(e), retryMs: wait });
        }
        await Bun.sleep(wait);
        wait = Math.min(wait * 2, RETRY_MAX_MS);
      }
      recovering = false;
      // Notifications that came during the reload, after it read their links or not.
      if (!stale && pending.size) await flush();
    });
  };

  const client = new SQL({
    url,
    max: 1,
    // A connection that only listens is idle: a server idle_session_timeout must not end it.
    connection: { idle_session_timeout: 0 },
    onclose: () => {
      if (stopping) return;
      if (listening) log.warn("redirect map: the listening connection to PostgreSQL was lost; redirects answer 503 until the map is reloaded");
      listening = false;
      losses++;
      stale = true;
    },
  });
  const onListen = () => {
    listening = true;
    if (firstListen) {
      firstListen = false;
      return;
    }
    recover();
  };
  let subscription: SQL.ListenSubscription;
  try {
    subscription = await client.listen(LINKS_CHANNEL, onNotify, onListen);
  } catch (e) {
    await client.close();
    throw e;
  }

  return {
    get stale() {
      return stale;
    },
    async settled() {
      let seen: Promise<void>;
      do {
        seen = chain;
        await seen;
      } while (seen !== chain);
    },
    async stop() {
      stopping = true;
      await subscription.unlisten().catch(() => {});
      await client.close();
      await chain;
    },
  };
}
