// Database faults that are the environment's, not the request's, on either backend: each is
// answered 503 (src/http/errors.ts) rather than 500. Here, beside the connection code, so db/
// needs nothing from the HTTP layer.
import { AppError } from "../shared/errors";

export const BUSY_MESSAGE = "The database is busy. Please try again.";
export const FULL_MESSAGE = "The server's storage is full. Please try again later.";
export const UNWRITABLE_MESSAGE = "The server cannot write to its storage right now. Please try again later.";
/** Seconds a client should wait after a busy answer: the writer already waited busy_timeout (5 s). */
export const BUSY_RETRY_AFTER_S = 2;

/**
 * SQLite faults that are the environment's, not the request's: a writer holding the lock past
 * busy_timeout, a full disk or quota, a read-only or failing disk. SQLite rolls the statement
 * (and bun's db.transaction the whole transaction) back before the error reaches us, so
 * answering 503 loses nothing that was committed and leaves nothing half-written. Extended
 * codes (SQLITE_BUSY_SNAPSHOT, SQLITE_IOERR_WRITE…) are matched by their primary prefix.
 */
export function sqliteFault(error: unknown): AppError | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !code.startsWith("SQLITE_")) return null;
  switch (code.split("_").slice(0, 2).join("_")) {
    case "SQLITE_BUSY":
    case "SQLITE_LOCKED":
      return new AppError("UNAVAILABLE", BUSY_MESSAGE, undefined, { "retry-after": String(BUSY_RETRY_AFTER_S) });
    case "SQLITE_FULL":
      return new AppError("UNAVAILABLE", FULL_MESSAGE);
    case "SQLITE_READONLY":
    case "SQLITE_IOERR":
    case "SQLITE_CANTOPEN":
      return new AppError("UNAVAILABLE", UNWRITABLE_MESSAGE);
  }
  return null;
}

export const UNREACHABLE_MESSAGE = "The server cannot reach its database right now. Please try again shortly.";
/** Seconds a client should wait when the database server cannot be reached (the pool reconnects). */
export const UNREACHABLE_RETRY_AFTER_S = 5;

/** The PostgreSQL server is gone, not yet up, or restarting (start-up waits for it: db/connect.ts). */
export function postgresUnreachable(error: unknown): boolean {
  const e = error as { name?: unknown; code?: unknown; errno?: unknown } | null;
  if (e?.name !== "PostgresError") return false;
  const state = typeof e.errno === "string" ? e.errno : "";
  // Bun's own: CONNECTION_CLOSED, _FAILED, _REFUSED, _TIMEOUT, and a pooled connection timed out.
  if (typeof e.code === "string" && /^ERR_POSTGRES_(CONNECTION_|IDLE_TIMEOUT|LIFETIME_TIMEOUT)/.test(e.code)) return true;
  return state.startsWith("08") || state === "57P01" || state === "57P02" || state === "57P03";
}

/**
 * PostgreSQL faults that are the environment's, named as for SQLite: the server gone or
 * restarting (Bun's connection errors; SQLSTATE class 08, 57P01-57P03 shutdown), a lock or a
 * transaction that must be retried (40001, 40P01, 55P03, 57014 a timeout), no room (53100 disk
 * full, 53200 memory, 53300 too many connections), a read-only database (25006). PostgreSQL
 * rolls the transaction back, so nothing half-written is left; the pool opens a new connection
 * for the next request. Request errors (a bad value, a broken constraint) are not faults.
 */
export function postgresFault(error: unknown): AppError | null {
  const e = error as { name?: unknown; code?: unknown; errno?: unknown } | null;
  if (e?.name !== "PostgresError") return null;
  const state = typeof e.errno === "string" ? e.errno : "";
  if (postgresUnreachable(error)) return new AppError("UNAVAILABLE", UNREACHABLE_MESSAGE, undefined, { "retry-after": String(UNREACHABLE_RETRY_AFTER_S) });
  switch (state) {
    case "40001":
    case "40P01":
    case "55P03":
    case "57014":
    case "53300":
      return new AppError("UNAVAILABLE", BUSY_MESSAGE, undefined, { "retry-after": String(BUSY_RETRY_AFTER_S) });
    case "53100":
    case "53200":
      return new AppError("UNAVAILABLE", FULL_MESSAGE);
    case "25006":
      return new AppError("UNAVAILABLE", UNWRITABLE_MESSAGE);
  }
  return null;
}
