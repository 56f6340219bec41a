// N instances on one PostgreSQL: each keeps its own code → link map for the redirects
// (service.ts) and follows the others' link writes through LISTEN/NOTIFY. The trigger of
// migrations/pg/0009 sends [id, previous code] for every insert, update and delete of a link,
// at commit, whoever wrote it (another instance, the CLI, an import); the follower reads those
// links again by id and puts them in the map, usually a few milliseconds after the commit.
//
// The map is always served, also while the listening connection is lost: while PostgreSQL is
// down nothing can change, and a visitor is better served by the map of a moment ago than by a
// 503 from every instance at once (issue 22). What a lost connection costs is catching up:
// PostgreSQL delivers a notification only to a listener connected at the time, so every link
// write also leaves a row in link_changes (migrations/pg/0014) with its transaction's id, and
// after listening again the follower reads the rows of every transaction from its watermark on.
//
// The watermark, and noticing a silent connection: every HEARTBEAT_MS the instance NOTIFYs its
// own heartbeat through the pool, with the snapshot's xmin (links store, pulse). When that
// notification comes back on the listening connection, every transaction below the xmin has
// been delivered before it (commit order) and applied (the tasks run in order), so the xmin
// becomes the watermark. A heartbeat not heard on the listening connection within SILENT_MS of
// its commit means a connection that is up but delivers nothing (a half-open TCP connection, a
// paused backend): only then, or when the connection closes, is the map called stale, and the
// follower listens again on a new connection at once and catches up.
//
// Read-your-writes across instances: the instances hear each other's heartbeats, so each knows
// which others are live. A write is answered once every live instance has confirmed it
// (barrier): the writer NOTIFYs a sync after its commit, each instance that receives it has
// applied every change committed before it and answers with an ack, and the writer waits for
// all of them, at most ACK_WAIT_MS (README: the guarantee and its bound).
// SQLite runs one instance, whose own writes keep its map exact: no follower there.
import { SQL } from "bun";
import { log } from "../http/log";
import type { Watermark } from "./mapSnapshot";
import type { RedirectRow } from "./store";

export const LINKS_CHANNEL = "threadlink_links";

/** Links read again per statement (a bulk import notifies once per link). */
const BATCH = 1000;
/** How often an instance checks its listening connection (and tells the others it is live). */
export const HEARTBEAT_MS = 1_000;
/** A heartbeat not back after this long while the pool answers: the listening connection is silent. */
export const SILENT_MS = 3_000;
/** Wait between attempts to listen again (Bun's own backoff grows to 32 s: not used). */
const RELISTEN_MS = 500;
/**
 * Another instance unheard for this long is left out of the barrier (it was killed, or cannot
 * reach the database). Five heartbeats: on a saturated machine one can come seconds late, and
 * an instance left out by mistake would not be waited for.
 */
const LIVE_MS = 5_000;
/** The longest the goodbye waits for heartbeats in flight (stop): within the 3 s shutdown. */
const BYE_WAIT_MS = 500;
/** The longest a write waits for the other instances' confirmation (README). */
export const ACK_WAIT_MS = 1_000;
/**
 * A write still unconfirmed after this sends its sync again: an instance that was not
 * listening when the first one went out (listening again after the database came back) never
 * received it, and its confirmation of a later sync says the same (every change committed
 * before it applied). Without this such a write waited out the whole ACK_WAIT_MS.
 */
const RESYNC_MS = 100;
/** link_changes keeps this many hours (pruned by every instance now and then). */
const KEEP_HOURS = 24;
/** Away for longer than this (half the log), an instance reads its whole map again. */
const CATCH_UP_MAX_MS = (KEEP_HOURS / 2) * 3_600_000;
const PRUNE_EVERY_MS = 600_000;

/** What the follower needs from the map's owner (service.ts). */
export type FollowedMap = {
  /** Puts a link, as it is now, under its current code. */
  put(row: RedirectRow): void;
  /** Removes `code` from the map if it still names link `id` (a rename or a delete). */
  drop(code: string, id: number): void;
  /** Reads every link again into a new map and then serves from it (the old one meanwhile). */
  reloadAll(): Promise<void>;
};

/** The statements the follower runs through the app's pool (the links store's). */
export type FollowStore = {
  /** The links a batch of notifications names, as they are now. */
  forRedirectByIds(ids: number[]): Promise<RedirectRow[]>;
  pulse(channel: string, payload: string): Promise<{ xmin: string; at: number }>;
  changesSince(xmin: string): Promise<({ xmin: string; at: number; change_id: number | null; change_code: string | null } & Partial<Record<keyof RedirectRow, unknown>>)[]>;
  pruneChanges(keepHours: number): Promise<number>;
};

export type Follower = {
  /** True while changes may have been missed (listener lost or silent, not yet caught up). */
  readonly stale: boolean;
  /** Resolves once every live instance has applied every link write committed before the call. */
  barrier(): Promise<void>;
  /** Resolves once every notification received so far is in the map (tests, benchmarks). */
  settled(): Promise<void>;
  /** Every transaction below its xmin is in the map (read after stop(), for the map's snapshot). */
  readonly watermark: Watermark | null;
  stop(): Promise<void>;
};
/** The follower's own messages on the channel (link writes are arrays: [id, code]). */
type Message = { t: "hb"; i: string; n: number; bye?: 1 } | { t: "sync"; i: string; n: number } | { t: "ack"; i: string; to: string; n: number };

/**
 * Listens on LINKS_CHANNEL over a connection of its own, takes the first watermark and reads
 * the whole map (map.reloadAll), or, `from` a snapshot's watermark, what changed since it.
 * Resolves once the map holds every change committed so far: listening first, so no change can
 * fall between the two.
 */
export async function followLinks(url: string, store: FollowStore, map: FollowedMap, from?: Watermark): Promise<Follower> {
  const me = crypto.randomUUID();
  let stale = false;
  let stopping = false;
  /** Bumped at every loss: a catch-up that began before one must not clear `stale`. */
  let losses = 0;
  /** Every transaction below it is in the map (or will be read by the next catch-up). */
  let watermark: Watermark | null = null;
  /** id → codes the notifications named (a link renamed twice before a batch ran has two). */
  let pending = new Map<number, Set<string>>();
  /** Every batch and catch-up runs after the one before it, so an older read never lands last. */
  let chain: Promise<void> = Promise.resolve();
  /** The listening client now, and its generation (a closed one's late callbacks are ignored). */
  let client: SQL | null = null;
  let generation = 0;
  let relistening = false;
  let wake: (() => void) | null = null;
  /** Heartbeats sent (the pool answered) and not yet back: number → its watermark, and when it committed. */
  const inFlight = new Map<number, { mark: Watermark; losses: number; at: number }>();
  let beat = 0;
  /** The newest own heartbeat back, and when (performance.now()). */
  let beatBack = 0;
  let backAt = performance.now();
  /** The newest own heartbeat received on the listening connection, applied or still queued behind changes. */
  let heard = 0;
  /** Other instances' last heartbeat (performance.now()), live ones only. */
  const peers = new Map<string, number>();
  let syncs = 0;
  const waits = new Map<number, { want: Set<string>; done: () => void }>();

  const enqueue = (task: () => Promise<void>) => {
    chain = chain.then(task, task);
    return chain;
  };

  const apply = (id: number, codes: Iterable<string>, row: RedirectRow | undefined) => {
    for (const code of codes) if (!row || row.short_code !== code) map.drop(code, id);
    if (row) map.put(row);
  };

  const flush = async () => {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    const ids = [...batch.keys()];
    try {
      for (let i = 0; i < ids.length; i += BATCH) {
        const part = ids.slice(i, i + BATCH);
        const now = new Map((await store.forRedirectByIds(part)).map((r) => [r.id, r]));
        for (const id of part) apply(id, batch.get(id)!, now.get(id));
      }
    } catch (e) {
      // The database did not answer: what this batch named is read by the next catch-up (the
      // watermark has not passed it), so the map is behind until then.
      lost("reading changed links failed", e);
    }
  };

  /**
   * Reads what changed since the watermark into the map; the whole map instead when there is no
   * watermark, when it is older than the change log surely keeps, or when the database is behind
   * it (restored from a backup: its transaction ids count again from an earlier point, so the
   * log past the watermark would miss what the restore undid). Throws when the database fails.
   */
  const readChanges = async () => {
    const rows = watermark ? await store.changesSince(watermark.xmin) : [];
    if (!watermark || rows[0]!.at - watermark.at > CATCH_UP_MAX_MS || BigInt(rows[0]!.xmin) < BigInt(watermark.xmin)) {
      const mark = await store.pulse(LINKS_CHANNEL, "");
      await map.reloadAll();
      watermark = mark;
      return "all" as const;
    }
    const byId = new Map<number, { codes: string[]; row: RedirectRow | undefined }>();
    for (const r of rows) {
      if (r.change_id === null || r.change_code === null) continue;
      let e = byId.get(r.change_id);
      if (!e) byId.set(r.change_id, (e = { codes: [], row: r.id == null ? undefined : (r as unknown as RedirectRow) }));
      e.codes.push(r.change_code);
    }
    for (const [id, e] of byId) apply(id, e.codes, e.row);
    watermark = { xmin: rows[0]!.xmin, at: rows[0]!.at };
    return byId.size;
  };

  /** Catches up after a loss (readChanges), trying again shortly while the database fails. */
  const catchUp = async () => {
    const seen = losses;
    const t0 = performance.now();
    try {
      const changes = await readChanges();
      if (seen === losses && client && !stopping) {
        if (stale) log.info("redirect map caught up", { links: changes, ms: Math.round(performance.now() - t0) });
        stale = false;
      }
    } catch (e) {
      if (stopping) return;
      // Still listening: try again shortly (a failure here is the database going away again,
      // which closes the listening connection too and starts over).
      log.warn("redirect map: catching up failed; trying again", { error: String(e) });
      setTimeout(() => {
        if (seen === losses && !stopping) void enqueue(catchUp);
      }, RELISTEN_MS);
    }
  };

  /** The listening connection is gone or silent: stale until listened again and caught up. */
  const lost = (why: string, error?: unknown) => {
    if (stopping) return;
    losses++;
    inFlight.clear();
    if (!stale) log.warn("redirect map: lost the other instances' changes; serving the map as it is while catching up", { reason: why, ...(error ? { error: String(error) } : {}) });
    stale = true;
    const old = client;
    client = null;
    generation++;
    // Closed without waiting: a silent connection may never answer a goodbye. Bun would also
    // reconnect it by itself, with a backoff that grows to 32 s: a new client is used instead.
    if (old) void old.close({ timeout: 0 }).catch(() => {});
    void relisten();
  };

  /** Opens a new listening connection; retried every RELISTEN_MS, or at once when the pool answers. */
  const listen = async () => {
    const gen = ++generation;
    const next = new SQL({
      url,
      max: 1,
      connectionTimeout: 2,
      // A connection that only listens is idle: a server idle_session_timeout must not end it.
      connection: { idle_session_timeout: 0 },
      onclose: (err) => {
        if (gen === generation && client === next) lost("the listening connection closed", err);
      },
    });
    try {
      await next.listen(LINKS_CHANNEL, onNotify);
    } catch (e) {
      void next.close({ timeout: 0 }).catch(() => {});
      throw e;
    }
    if (gen !== generation || stopping) {
      void next.close({ timeout: 0 }).catch(() => {});
      throw new Error("superseded");
    }
    client = next;
    backAt = performance.now();
    // Heartbeats missed while this listener was down say nothing about the others: each gets
    // a new grace period rather than being left out of the next barrier.
    for (const id of peers.keys()) peers.set(id, backAt);
  };

  const relisten = async () => {
    if (relistening) return;
    relistening = true;
    try {
      for (let attempt = 0; !stopping && !client; attempt++) {
        try {
          await listen();
          // Listening now: what was missed is read after this, and anything later is notified.
          void enqueue(catchUp);
          break;
        } catch (e) {
          if (attempt === 0) log.warn("redirect map: cannot listen for changes yet; retrying", { error: String(e), retryMs: RELISTEN_MS });
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, RELISTEN_MS);
          });
          wake = null;
        }
      }
    } finally {
      relistening = false;
    }
  };

  const send = (m: Message) => store.pulse(LINKS_CHANNEL, JSON.stringify(m));

  const onMessage = (m: Message) => {
    if (m.t === "hb") {
      if (m.i !== me) {
        // A peer catching up is still waited for: its confirmation comes only after its
        // catch-up (read before any notification on its new connection).
        if (m.bye) {
          // Gone: no longer waited for, by the next barrier nor by one waiting now (a write
          // answered just as another instance stopped waited the whole ACK_WAIT_MS for it).
          peers.delete(m.i);
          for (const n of [...waits.keys()]) confirm(m.i, n);
        } else peers.set(m.i, performance.now());
        return;
      }
      // Our own heartbeat, back: the connection delivers (heard), and in the chain, so every
      // change before it is applied first (the watermark).
      const n = m.n;
      heard = Math.max(heard, n);
      void enqueue(async () => {
        if (n <= beatBack) return;
        beatBack = n;
        backAt = performance.now();
        const sent = inFlight.get(n);
        for (const k of inFlight.keys()) if (k <= n) inFlight.delete(k);
        if (sent && sent.losses === losses && client && !stale) watermark = sent.mark;
      });
    } else if (m.t === "sync") {
      void enqueue(async () => {
        // Every change committed before this sync is applied by now.
        if (m.i === me) return confirm(me, m.n);
        await send({ t: "ack", i: me, to: m.i, n: m.n }).catch(() => {});
      });
    } else if (m.t === "ack" && m.to === me) confirm(m.i, m.n);
  };

  const confirm = (from: string, n: number) => {
    const w = waits.get(n);
    if (!w) return;
    w.want.delete(from);
    if (w.want.size === 0) w.done();
  };

  const onNotify = (payload: string) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      return;
    }
    if (!Array.isArray(parsed)) {
      if (parsed && typeof parsed === "object" && typeof (parsed as Message).t === "string") onMessage(parsed as Message);
      return;
    }
    const [id, code] = parsed as [unknown, unknown];
    if (!Number.isSafeInteger(id) || typeof code !== "string") return;
    let codes = pending.get(id as number);
    if (!codes) pending.set(id as number, (codes = new Set()));
    codes.add(code);
    // One batch per burst: notifications of one commit arrive together, before this runs.
    if (pending.size === 1) void enqueue(flush);
  };

  /** Heartbeats sent and not answered yet: the goodbye waits for them (stop). */
  const beating = new Set<Promise<unknown>>();
  const heartbeat = async () => {
    const n = ++beat;
    const atLoss = losses;
    try {
      const sent = send({ t: "hb", i: me, n });
      beating.add(sent);
      void sent.catch(() => {}).finally(() => beating.delete(sent));
      const mark = await sent;
      // The pool answers: a listener that is down may listen again now rather than later.
      wake?.();
      if (client && atLoss === losses) {
        // Back already (the notification can beat the statement's answer): the watermark moves now.
        if (beatBack >= n) {
          if (!stale) watermark = mark;
        }
        else inFlight.set(n, { mark, losses: atLoss, at: performance.now() });
      }
    } catch {
      // The database does not answer: the heartbeat cannot come back, and once none has for
      // SILENT_MS the map is called stale (nothing can change meanwhile, and it is served as it is).
      if (client && !stale && performance.now() - backAt > SILENT_MS) lost("no heartbeat came back on the listening connection");
    }
    // Silent: a heartbeat committed SILENT_MS ago has not been heard. Timed from its commit,
    // not from the last one applied: with every pooled connection busy on reports for seconds
    // the heartbeats commit late, and behind a large change (750,000 links updated in one
    // statement) they are heard at once but applied seconds later. tenant-scale.ts on
    // PostgreSQL had the map called stale 3 to 5 times a run by both.
    const now = performance.now();
    if (client && !stale) {
      for (const [k, f] of inFlight) if (k > heard && now - f.at > SILENT_MS) {
        lost("no heartbeat came back on the listening connection");
        break;
      }
    }
    // Only while this listener hears its own heartbeats is a silent peer known to be gone.
    if (client && !stale) for (const [id, at] of peers) if (performance.now() - at > LIVE_MS) peers.delete(id);
  };

  let lastPrune = 0;
  const beatEvery = () => setInterval(() => {
    void heartbeat();
    if (performance.now() - lastPrune > PRUNE_EVERY_MS) {
      lastPrune = performance.now();
      store.pruneChanges(KEEP_HOURS).catch(() => {});
    }
  }, HEARTBEAT_MS);

  await listen();
  // The first read of the map runs in the chain, like every later one: a change notified while
  // it reads (seconds at a million links) is applied after it, to the map it made, rather than
  // to the old one it replaces (and lost). The chain drained, nothing notified is left unapplied.
  try {
    if (from) {
      // The map holds a snapshot of `from` (mapSnapshot.ts): what changed since, or all of it.
      watermark = from;
      await enqueue(async () => void (await readChanges()));
    } else {
      // The first watermark: the whole map is read after this, so every transaction below this
      // xmin is in it, and every later one is notified.
      watermark = await store.pulse(LINKS_CHANNEL, "");
      await enqueue(map.reloadAll);
    }
    await chain;
  } catch (e) {
    // The start fails with it: nothing is left listening.
    stopping = true;
    await (client as SQL | null)?.close({ timeout: 0 }).catch(() => {});
    throw e;
  }
  // Heartbeats only from now: until this instance serves, the others need not wait for it in
  // their barriers (their writes are read by the load or applied just after it).
  const timer = beatEvery();

  return {
    get stale() {
      return stale;
    },
    get watermark() {
      return watermark;
    },
    async barrier() {
      const deadline = performance.now() + ACK_WAIT_MS;
      // Not listening (the connection lost, a new one not yet up): no confirmation can reach
      // this instance until it listens again (RELISTEN_MS), waited for within the same bound.
      while (!client && !stopping && performance.now() < deadline) await Bun.sleep(20);
      if (stopping || !client) return;
      const n = ++syncs;
      const now = performance.now();
      const want = new Set([me, ...[...peers].filter(([, at]) => now - at <= LIVE_MS).map(([id]) => id)]);
      let done!: () => void;
      const confirmed = new Promise<void>((resolve) => (done = resolve));
      waits.set(n, { want, done });
      let timeout: ReturnType<typeof setTimeout> | undefined;
      let resend: ReturnType<typeof setInterval> | undefined;
      try {
        await send({ t: "sync", i: me, n });
        resend = setInterval(() => void send({ t: "sync", i: me, n }).catch(() => {}), RESYNC_MS);
        const late = new Promise<"late">((resolve) => (timeout = setTimeout(() => resolve("late"), Math.max(0, deadline - performance.now()))));
        if ((await Promise.race([confirmed, late])) === "late") {
          log.warn("a link write was answered before every instance confirmed it", { waitedMs: ACK_WAIT_MS, unconfirmed: want.size, self: want.has(me) });
        }
      } catch {
        // The write is committed; the database went away before the sync: nothing can change
        // meanwhile, and the instances catch up from their watermarks when it is back.
      } finally {
        clearTimeout(timeout);
        clearInterval(resend);
        waits.delete(n);
      }
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
      clearInterval(timer);
      wake?.();
      // The others stop waiting for this instance's confirmations at once. After the heartbeats
      // in flight (for up to BYE_WAIT_MS): one committed after the goodbye made the others count
      // this instance again, and a write then waited ACK_WAIT_MS for it.
      if (beating.size > 0) await Promise.race([Promise.allSettled([...beating]), Bun.sleep(BYE_WAIT_MS)]);
      await send({ t: "hb", i: me, n: ++beat, bye: 1 }).catch(() => {});
      const c = client;
      client = null;
      generation++;
      await c?.close({ timeout: 1 }).catch(() => {});
      await chain;
    },
  };
}
