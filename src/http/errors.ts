import { Elysia } from "elysia";
import { AppError, statusOf, validationFailure, type ErrorBody, type ErrorCode, type Issue } from "../shared/errors";
import { postgresFault, sqliteFault } from "../db/faults";
import { BASE_SECURITY_HEADERS } from "./headers";
import { rateLimitedLog } from "./log";

/**
 * A failure a person meets in the address bar rather than a script: answered with a page of
 * its own (e.g. the visitor 404 page) instead of the JSON error shape.
 */
export class PageError extends Error {
  constructor(readonly page: () => Response) {
    super("page");
  }
}

export function errorResponse(code: ErrorCode, message: string, fields?: Record<string, string>, headers?: Record<string, string>) {
  const body: ErrorBody = { error: { code, message, ...(fields ? { fields } : {}) } };
  return new Response(JSON.stringify(body), {
    status: statusOf[code],
    headers: { ...BASE_SECURITY_HEADERS, "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
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
