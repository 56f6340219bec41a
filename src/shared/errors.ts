// The one error shape every /api failure uses; the web client reads `error.message`. AppError
// and its helpers live here, on the ground floor, so stores and db/ can refuse a request without
// importing the HTTP layer (src/http/errors.ts turns them into responses).
import * as v from "valibot";

export const ERROR_CODES = [
  "VALIDATION",
  "BAD_REQUEST",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "QUOTA_EXCEEDED",
  "NOT_FOUND",
  "METHOD_NOT_ALLOWED",
  "CONFLICT",
  "GONE",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "RATE_LIMITED",
  "EXPORT_IN_PROGRESS",
  "INTERNAL",
  "UNAVAILABLE",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** `fields` names the fields at fault, each with its message, when the failure is one field's. */
export const ErrorBody = v.object({
  error: v.object({
    code: v.picklist(ERROR_CODES),
    message: v.string(),
    fields: v.optional(v.record(v.string(), v.string())),
  }),
});
export type ErrorBody = v.InferOutput<typeof ErrorBody>;

export const statusOf: Record<ErrorCode, number> = {
  VALIDATION: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  QUOTA_EXCEEDED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  EXPORT_IN_PROGRESS: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
};

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

export type Issue = { message?: string; path?: readonly { key?: unknown }[] };

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
