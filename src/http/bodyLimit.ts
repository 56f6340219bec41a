import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { AppError } from "./errors";

/** Largest request body the app reads. Every form and API body is a few kB at most. */
export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * Bun's own ceiling (maxRequestBodySize, 128 MB by default): bodies above it are refused by
 * the server itself with a bare 413 before any route runs. It sits above MAX_BODY_BYTES so
 * that ordinary oversize requests get the app's clear 413 in the one error shape, and it
 * bounds the memory a body sent without Content-Length (chunked) can take.
 */
export const MAX_REQUEST_BYTES = 4 * MAX_BODY_BYTES;
export const TOO_LARGE_MESSAGE = "The request is too large. The limit is 1 MB.";

const declaredTooLarge = (request: Request) => Number(request.headers.get("content-length") ?? 0) > MAX_BODY_BYTES;

/**
 * Refuses a body whose Content-Length exceeds MAX_BODY_BYTES with 413 PAYLOAD_TOO_LARGE, in
 * the transform phase: before validation and every handler, so nothing is written. (Elysia
 * has parsed such a body by then, which MAX_REQUEST_BYTES keeps cheap. A global parse hook
 * could skip the read, but its mere presence breaks routes declared with parse: "none".)
 */
export function bodyLimit(ctx: AppContext) {
  return new Elysia({ name: "body-limit", seed: ctx.instanceId }).onTransform({ as: "global" }, ({ request }) => {
    if (declaredTooLarge(request)) throw new AppError("PAYLOAD_TOO_LARGE", TOO_LARGE_MESSAGE);
  });
}
