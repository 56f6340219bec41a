// The write lock of a SQLite file, shared by two connections in one process: the request
// thread's (src/db/database.ts) and the click worker's (src/analytics/clickWorker.ts). SQLite
// has one writer at a time, and a connection that finds the lock taken waits for it inside
// sqlite3_step, synchronously, for up to busy_timeout. On the request thread that wait stopped
// every redirect: one client creating a link every 20 ms during a click flood held the
// redirects' p99 at 191–235 ms and their maximum at 435–845 ms, against 5–6 and 25–26 ms
// without it (docs/performance.md, lead session 12). So the request thread never lets SQLite wait:
//
// - it tries the lock with busy_timeout 0 and, when the click writer has it, sleeps a few ms
//   (asynchronously: redirects are answered meanwhile) and tries again, for as long as
//   busy_timeout says, then fails as SQLite would have (SQLITE_BUSY: a 503);
// - while it waits it says so in a counter both threads see (a SharedArrayBuffer), and the
//   click worker does not begin its next transaction while the counter is above 0 (for at most
//   APP_FIRST_MS), so an app write waits for one click transaction at most, not for a backlog.

/** The counter: [0] = the request thread's writes waiting for, or holding, the lock after a wait. */
export type WriteTurn = Int32Array<SharedArrayBuffer>;

export const newWriteTurn = (): WriteTurn => new Int32Array(new SharedArrayBuffer(4));

/** How long the click worker holds back a transaction for waiting app writes, at most. */
export const APP_FIRST_MS = 100;
/** The request thread's pause between two tries of the lock, at most. */
const RETRY_MAX_MS = 4;

export const isBusy = (e: unknown) => {
  const code = (e as { code?: unknown } | null)?.code;
  return (typeof code === "string" && code.startsWith("SQLITE_BUSY")) || /database is locked/i.test(String(e));
};

/**
 * The click worker's side, before each of its transactions: while app writes wait, it waits
 * (this thread only), up to APP_FIRST_MS, then goes on (clicks are never held back for long).
 */
export function letAppWritesFirst(turn: WriteTurn | null) {
  if (!turn) return;
  const until = performance.now() + APP_FIRST_MS;
  for (let waiting = Atomics.load(turn, 0); waiting > 0; waiting = Atomics.load(turn, 0)) {
    const left = until - performance.now();
    if (left <= 0) return;
    Atomics.wait(turn, 0, waiting, left);
  }
}

type Handle = { exec(sql: string): unknown; prepare(sql: string): { get(): unknown } };

/**
 * The connection's busy_timeout now. Prepared afresh each time: SQLite computes a pragma's value
 * when the statement is compiled, so a cached `PRAGMA busy_timeout` keeps answering the value it
 * was compiled with (~3 µs).
 */
export const busyTimeoutOf = (handle: Handle) => (handle.prepare("PRAGMA busy_timeout").get() as { timeout: number }).timeout;

/**
 * The request thread's side. `tryNow` runs `attempt` (BEGIN IMMEDIATE, or one statement) once
 * with SQLite's wait turned off: its value, or `busy` when the lock was taken. `take` tries
 * again after short asynchronous sleeps, for up to the connection's busy_timeout (then throws
 * SQLite's busy error: a 503), raising the counter while it waits; `waited` says it did, and
 * the caller lowers it with `done()` once its transaction has ended.
 */
export function lockTaker(handle: Handle, turn: WriteTurn) {
  const busy = { busy: true } as const;
  function once<T>(attempt: () => T, timeout: number): { value: T } | { error: unknown } {
    handle.exec("PRAGMA busy_timeout = 0");
    try {
      return { value: attempt() };
    } catch (error) {
      if (isBusy(error)) return { error };
      throw error;
    } finally {
      handle.exec(`PRAGMA busy_timeout = ${timeout}`);
    }
  }
  function done() {
    Atomics.sub(turn, 0, 1);
    Atomics.notify(turn, 0);
  }
  const timeout = () => busyTimeoutOf(handle);
  return {
    tryNow<T>(attempt: () => T): { value: T } | typeof busy {
      const r = once(attempt, timeout());
      return "value" in r ? r : busy;
    },
    async take<T>(attempt: () => T): Promise<{ value: T; waited: boolean }> {
      const ms = timeout();
      const first = once(attempt, ms);
      if ("value" in first) return { value: first.value, waited: false };
      Atomics.add(turn, 0, 1);
      try {
        const deadline = performance.now() + ms;
        for (let pause = 1; ; pause = Math.min(pause * 2, RETRY_MAX_MS)) {
          await Bun.sleep(pause);
          // The setting as it is now, not `ms`: a caller may have turned it off around the start
          // of this write (webhooks/store.ts, withoutWaiting) and back on since; putting back the
          // 0 read then left every later write on this connection failing at once.
          const next = once(attempt, timeout());
          if ("value" in next) return { value: next.value, waited: true };
          if (performance.now() >= deadline) throw next.error;
        }
      } catch (e) {
        done();
        throw e;
      }
    },
    done,
  };
}
