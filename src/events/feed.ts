// How the event log's readers learn that events were committed (issue 26), without polling: the
// live-update hub (./live.ts) and the webhook worker (src/webhooks/worker.ts) are woken by it.
//
// SQLite (one instance): the writers in this process say so. appendEvents (./store.ts) signals
// after its statements, the click recorder when the click worker reports a batch written
// (src/analytics/recorder.ts). A wake carries no ids: the reader reads the log after its own
// watermark, which is exact on SQLite (one writer at a time, so ids commit in order).
//
// PostgreSQL (one or more instances): the events_notify trigger (migrations/pg/0015) sends each
// INSERT statement's id range [lo, hi] on threadlink_events at commit, from whichever instance
// wrote it; every instance LISTENs on a connection of its own (as src/links/follow.ts does for
// links) and reads those rows. The payload is two numbers, whatever the batch's size (NOTIFY
// caps payloads at 8000 bytes). A lost connection is listened again; what was said meanwhile
// is unknown, so the readers are told of a gap and catch up themselves.
import { SQL } from "bun";
import type { Config } from "../config";
import { log } from "../http/log";

export const EVENTS_CHANNEL = "threadlink_events";
const RELISTEN_MS = 1_000;

/** `range`: the ids one statement wrote (PostgreSQL); null: something was written (SQLite), or a gap. */
export type Wake = { range: [number, number] | null; gap?: boolean };
type Listener = (w: Wake) => void;

// In-process signal (SQLite). Process-wide: several apps in one process (tests) each read their
// own database when woken; a wake that finds nothing new costs one indexed read.
const local = new Set<Listener>();
let localPending = false;

/**
 * Something appended events (or is about to commit them): wakes the readers on the next turn of
 * the event loop, once per burst. A SQLite transaction commits synchronously when its body ends,
 * so by then it has; the readers look once more shortly after, in case it had not (./live.ts).
 */
export function eventsWritten() {
  if (localPending || local.size === 0) return;
  localPending = true;
  setTimeout(() => {
    localPending = false;
    for (const l of local) l({ range: null });
  }, 0);
}

export type EventFeed = {
  /** Calls `fn` for each wake; returns the unsubscribe. */
  on(fn: Listener): () => void;
  /** Resolves once listening (PostgreSQL; at once on SQLite), or after a first failed attempt. */
  ready: Promise<void>;
  stop(): Promise<void>;
};

/** The feed of one app: the in-process signal on SQLite, LISTEN on PostgreSQL. */
export function eventFeed(config: Config): EventFeed {
  const listeners = new Set<Listener>();
  const emit = (w: Wake) => {
    for (const l of listeners) {
      try {
        l(w);
      } catch (e) {
        log.error("event feed listener failed", { error: String(e) });
      }
    }
  };
  if (!config.databaseUrl) {
    local.add(emit);
    return {
      on: (fn) => (listeners.add(fn), () => listeners.delete(fn)),
      ready: Promise.resolve(),
      stop: async () => void local.delete(emit),
    };
  }
  const url = config.databaseUrl;
  let client: SQL | null = null;
  let stopping = false;
  let generation = 0;
  let retry: ReturnType<typeof setTimeout> | null = null;
  let warned = false;

  const onNotify = (payload: string) => {
    let p: unknown;
    try {
      p = JSON.parse(payload);
    } catch {
      return;
    }
    if (!Array.isArray(p) || !Number.isSafeInteger(p[0]) || !Number.isSafeInteger(p[1])) return;
    emit({ range: [p[0] as number, p[1] as number] });
  };

  const listen = async () => {
    retry = null;
    if (stopping) return;
    const gen = ++generation;
    const next = new SQL({
      url,
      max: 1,
      connectionTimeout: 2,
      // Only listens, so it is idle: a server idle_session_timeout must not end it.
      connection: { idle_session_timeout: 0 },
      onclose: () => {
        if (gen !== generation || client !== next || stopping) return;
        client = null;
        // A new client rather than Bun's own reconnect (its backoff grows to 32 s).
        void next.close({ timeout: 0 }).catch(() => {});
        log.warn("live events: the listening connection closed; listening again");
        retry ??= setTimeout(() => void listen(), RELISTEN_MS);
      },
    });
    try {
      await next.listen(EVENTS_CHANNEL, onNotify);
    } catch (e) {
      void next.close({ timeout: 0 }).catch(() => {});
      if (!warned) log.warn("live events: cannot listen yet; retrying", { error: String(e) });
      warned = true;
      if (!stopping) retry ??= setTimeout(() => void listen(), RELISTEN_MS);
      return;
    }
    if (gen !== generation || stopping) {
      void next.close({ timeout: 0 }).catch(() => {});
      return;
    }
    const first = generation === 1;
    client = next;
    warned = false;
    // Listening again after a loss (or after a first attempt failed): whatever was notified
    // meanwhile went to nobody here; the readers catch up from the log.
    if (!first) emit({ range: null, gap: true });
  };
  const started = listen();

  return {
    on: (fn) => (listeners.add(fn), () => listeners.delete(fn)),
    ready: started,
    async stop() {
      stopping = true;
      if (retry) clearTimeout(retry);
      await started;
      const c = client;
      client = null;
      generation++;
      await c?.close({ timeout: 1 }).catch(() => {});
    },
  };
}
