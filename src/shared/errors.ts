// The one error shape every /api failure uses; the web client reads `error.message`.
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
