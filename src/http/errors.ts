import { Elysia } from "elysia";
import { statusOf, type ErrorBody, type ErrorCode } from "../shared/errors";
import { BASE_SECURITY_HEADERS } from "./headers";
import { rateLimitedLog } from "./log";

export class AppError extends Error {
  constructor(
    public code: ErrorCode,
    message: string,
    public fields?: Record<string, string>,
    public headers?: Record<string, string>,
  ) {
    super(message);
  }
  get status() {
    return statusOf[this.code];
  }
}

/**
 * A failure a person meets in the address bar rather than a script: answered with a page of
 * its own (e.g. the visitor 404 page) instead of the JSON error shape.
 */
export class PageError extends Error {
  constructor(readonly page: () => Response) {
    super("page");
  }
}

export const badRequest = (message: string, fields?: Record<string, string>) => new AppError("VALIDATION", message, fields);
export const notFound = (what = "Not found") => new AppError("NOT_FOUND", what);
export const forbidden = (message: string) => new AppError("FORBIDDEN", message);
export const conflict = (message: string, fields?: Record<string, string>) => new AppError("CONFLICT", message, fields);

export function errorResponse(code: ErrorCode, message: string, fields?: Record<string, string>, headers?: Record<string, string>) {
  const body: ErrorBody = { error: { code, message, ...(fields ? { fields } : {}) } };
  return new Response(JSON.stringify(body), {
    status: statusOf[code],
    headers: { ...BASE_SECURITY_HEADERS, "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

type Issue = { message?: string; path?: readonly { key?: unknown }[] };

// A message or field name built from input (valibot's default "received …" texts, object keys)
// is cut short: an error answer never echoes a large part of the request.
const MAX_MESSAGE = 200;
const short = (s: string) => (s.length > MAX_MESSAGE ? `${s.slice(0, MAX_MESSAGE)}…` : s);

/** A schema's first issue as the one VALIDATION answer: its message, keyed by its field. */
export function validationFailure(issue: Issue | undefined): AppError {
  const key = issue?.path?.map((p) => String(p.key)).join(".");
  const field = key ? short(key) : undefined;
  const message = short(issue?.message && !issue.message.startsWith("Invalid key") ? issue.message : field ? `${field} is required` : "Invalid input");
  return new AppError("VALIDATION", message, field ? { [field]: message } : undefined);
}

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

/**
 * What to log for a failing request: the route pattern (/api/invites/:code) rather than the
 * path, whose segments may be secrets such as invite codes.
 */
function routeOf(request: Request, route: string | undefined) {
  return route || new URL(request.url).pathname.replace(/^(\/api\/invites\/)[^/]+/, "$1:code");
}

// An unexpected failure is worth a stack trace, but a client that can trigger one must not be
// able to fill the disk with them: a few per minute, then one line saying how many were left out.
const unexpected = rateLimitedLog(5, 60_000);
const unavailable = rateLimitedLog(5, 60_000);

/** The single onError: every failure leaves the server as the one error shape. */
export const errorHandler = new Elysia({ name: "errors" }).onError({ as: "global" }, ({ code, error, request, route }) => {
  if (error instanceof AppError) return errorResponse(error.code, error.message, error.fields, error.headers);
  if (error instanceof PageError) return error.page();
  // PostgreSQL refuses U+0000 in text (22021), which SQLite stores: the request's value, not a
  // fault. Schemas refuse it in names; this answers for any other text that reaches a query.
  if ((error as { name?: unknown } | null)?.name === "PostgresError" && (error as { errno?: unknown }).errno === "22021") {
    return errorResponse("BAD_REQUEST", "Text must not contain the NUL character (U+0000)");
  }
  const fault = sqliteFault(error) ?? postgresFault(error);
  if (fault) {
    // Operators need to see these (a full disk does not fix itself); no request body is logged.
    unavailable("database unavailable", { method: request.method, path: routeOf(request, route), error: String(error) });
    return errorResponse(fault.code, fault.message, undefined, fault.headers);
  }
  switch (code) {
    case "VALIDATION": {
      // Query and params schemas (bodies are checked by jsonBody, which throws AppErrors).
      const failure = validationFailure((error as unknown as { valueError?: Issue }).valueError);
      return errorResponse(failure.code, failure.message, failure.fields);
    }
    case "PARSE":
      return errorResponse("BAD_REQUEST", "The request body is not valid JSON");
    case "NOT_FOUND":
      return errorResponse("NOT_FOUND", "Not found");
    case "INVALID_COOKIE_SIGNATURE":
      return errorResponse("UNAUTHORIZED", "Not signed in");
  }
  const status = (error as { status?: number }).status;
  if (typeof status === "number" && status >= 400 && status < 500) {
    return errorResponse(status === 413 ? "PAYLOAD_TOO_LARGE" : "BAD_REQUEST", status === 413 ? "The request is too large" : "Bad request");
  }
  // Unknown failures are logged with the path only (never bodies: they may hold passwords).
  unexpected("unhandled error", { method: request.method, path: routeOf(request, route), error: String((error as Error)?.stack ?? error) });
  return errorResponse("INTERNAL", "Something went wrong on our side. Please try again.");
});
