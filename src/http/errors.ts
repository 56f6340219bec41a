import { Elysia } from "elysia";
import { statusOf, type ErrorBody, type ErrorCode } from "../shared/errors";
import { log } from "./log";

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

export const badRequest = (message: string, fields?: Record<string, string>) => new AppError("VALIDATION", message, fields);
export const notFound = (what = "Not found") => new AppError("NOT_FOUND", what);
export const forbidden = (message: string) => new AppError("FORBIDDEN", message);
export const conflict = (message: string, fields?: Record<string, string>) => new AppError("CONFLICT", message, fields);

export function errorResponse(code: ErrorCode, message: string, fields?: Record<string, string>, headers?: Record<string, string>) {
  const body: ErrorBody = { error: { code, message, ...(fields ? { fields } : {}) } };
  return new Response(JSON.stringify(body), {
    status: statusOf[code],
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

type Issue = { message?: string; path?: { key?: unknown }[] };

/** The single onError: every failure leaves the server as the one error shape. */
export const errorHandler = new Elysia({ name: "errors" }).onError({ as: "global" }, ({ code, error, request }) => {
  if (error instanceof AppError) return errorResponse(error.code, error.message, error.fields, error.headers);
  switch (code) {
    case "VALIDATION": {
      const issue = (error as unknown as { valueError?: Issue }).valueError;
      const key = issue?.path?.map((p) => String(p.key)).join(".");
      const message = issue?.message && !issue.message.startsWith("Invalid key") ? issue.message : key ? `${key} is required` : "Invalid input";
      return errorResponse("VALIDATION", message, key ? { [key]: message } : undefined);
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
  log.error("unhandled error", { method: request.method, path: new URL(request.url).pathname, error: String((error as Error)?.stack ?? error) });
  return errorResponse("INTERNAL", "Something went wrong on our side. Please try again.");
});
