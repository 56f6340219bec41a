// Request bodies: read, bounded and parsed here, once, for every route; validated by the
// route's own schema through `jsonBody`. The budget (issue 11): no body of up to 1 MiB, whatever
// its shape, costs more than a few milliseconds or a few megabytes before it is refused.
import { Elysia } from "elysia";
import * as v from "valibot";
import type { AppContext } from "../context";
import { AppError, validationFailure } from "../shared/errors";
import { SESSION_COOKIE } from "./auth";

/** Largest request body the app reads. Every form and API body is a few kB at most. */
export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * The one exception to JSON-only: a CSV file sent to an import route (POST /api/links/import,
 * issue 14), read as bytes up to this cap. 10 MB holds ~100,000 links; a larger export is
 * imported in parts.
 */
export const CSV_BODY_BYTES = 10 * MAX_BODY_BYTES;
export const CSV_TOO_LARGE_MESSAGE = "The file is too large. The limit is 10 MB: split it and import the parts one after another.";
export const NOT_CSV_TYPE_MESSAGE = "Send the file as the request body, with the header Content-Type: text/csv (or application/json for this app's JSON export).";
/**
 * Bun's own ceiling (maxRequestBodySize): bodies above it are refused by the server itself
 * with a bare 413 before any route runs. It sits above the largest cap (CSV_BODY_BYTES) so
 * that ordinary oversize requests get the app's clear 413 in the one error shape; the app
 * itself never reads more than a route's cap + one chunk, declared length or not (chunked).
 */
export const MAX_REQUEST_BYTES = CSV_BODY_BYTES + MAX_BODY_BYTES;
/**
 * Deepest JSON nesting accepted. Every body the app takes is an object of scalars (depth 1);
 * the bound leaves room for clients that wrap, and keeps parse and validation linear.
 */
export const MAX_JSON_DEPTH = 20;
/** Most values (array items and object members) accepted in one body: forms send a dozen. */
export const MAX_JSON_VALUES = 10_000;

export const TOO_LARGE_MESSAGE = "The request is too large. The limit is 1 MB.";
export const NOT_JSON_TYPE_MESSAGE = "Send the request body as JSON, with the header Content-Type: application/json.";
export const BAD_JSON_MESSAGE = "The request body is not valid JSON";
export const BAD_UTF8_MESSAGE = "The request body is not valid UTF-8 text";
export const NOT_AN_OBJECT_MESSAGE = "Send the request body as a JSON object";
export const TOO_DEEP_MESSAGE = `The request body is nested too deeply (at most ${MAX_JSON_DEPTH} levels)`;
export const tooManyValuesMessage = (max: number) => `The request body holds too many values (at most ${max.toLocaleString("en")})`;
export const TOO_MANY_VALUES_MESSAGE = tooManyValuesMessage(MAX_JSON_VALUES);
/**
 * Values a JSON file sent to an import route may hold: 100,000 exported links of ~13 values
 * and up to 20 tags each fit, within the file's 10 MB.
 */
export const JSON_FILE_VALUES = 4_000_000;

/**
 * A body that was refused while reading. It is not thrown from the parse phase because that
 * runs before the Origin and sign-in checks (transform): an anonymous caller with a broken
 * body must learn only that it is not signed in. It is thrown at the first point after them:
 * the route's schema (jsonBody) or, for routes without one, the beforeHandle below.
 */
export class RejectedBody {
  constructor(readonly error: AppError) {}
  // Should anything ever serialise it, it stays one short word.
  toJSON() {
    return "[rejected body]";
  }
}

const reject = (code: "PAYLOAD_TOO_LARGE" | "UNSUPPORTED_MEDIA_TYPE" | "BAD_REQUEST", message: string) =>
  new RejectedBody(new AppError(code, message));

/** Reads at most `limit` bytes; null when the body is longer (the rest is never read). */
export async function readAtMost(body: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array | null> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return bytes;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;

/**
 * The shape of JSON text, in one pass over the bytes (brackets and commas inside strings do
 * not count): whether it nests deeper than `maxDepth`, and whether it holds more than
 * `maxValues` values (counted by their separators and containers). Run before JSON.parse, so
 * that neither the parser nor validation ever sees a 20,000-deep value (the framework's
 * validation error used to serialise one with indentation: ~2.5 GB and 5 s for a 40 kB body)
 * or a million tiny ones (350,000 `{}` in 1 MB cost ~30 ms and ~25 MB to parse).
 */
export function jsonShapeProblem(bytes: Uint8Array, maxDepth: number, maxValues: number): "depth" | "values" | null {
  let depth = 0;
  let values = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (++depth > maxDepth) return "depth";
      if (++values > maxValues) return "values";
    } else if (b === COMMA) {
      if (++values > maxValues) return "values";
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) depth--;
  }
  return null;
}

/** A JSON file sent to an import route (this app's own JSON export), parsed. */
export class JsonFileBody {
  constructor(readonly value: unknown) {}
  toJSON() {
    return "[json file body]";
  }
}

/** A CSV body, read as bytes: the import decides the encoding (a BOM, UTF-16, bad bytes). */
export class CsvBody {
  constructor(readonly bytes: Uint8Array) {}
  toJSON() {
    return "[csv body]";
  }
}

// What browsers and tools send for a .csv file (Windows reports Excel's type for it).
const CSV_TYPES = new Set(["text/csv", "text/plain", "application/csv", "application/vnd.ms-excel"]);

/**
 * Who may send a CSV body, asked before a byte of it is read: "anonymous" (no live session or
 * key: the body is left unread and the sign-in check answers 401), an AppError to answer
 * instead (the user's heavy-call limit), or "read".
 */
export type BodyGate = (request: Request, path: string) => Promise<"read" | "anonymous" | AppError>;

/**
 * A CSV route's body: bytes up to CSV_BODY_BYTES, or a RejectedBody. The session or key is
 * looked up first (issue 21): a made-up cookie used to be enough to have 10 MB read before the
 * sign-in check refused it (150 such uploads took the server from 109 to 1,543 MB). A body
 * declared larger than the cap is refused unread too.
 */
export async function readCsvBody(request: Request, contentType: string, gate: BodyGate, path: string): Promise<unknown> {
  if (request.body === null) return new CsvBody(new Uint8Array(0));
  if (!request.headers.has("authorization") && !request.headers.get("cookie")?.includes(`${SESSION_COOKIE}=`)) return {};
  const admitted = await gate(request, path);
  if (admitted === "anonymous") return {};
  if (admitted !== "read") return new RejectedBody(admitted);
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  const json = isJsonType(type);
  if (!json && !CSV_TYPES.has(type)) return reject("UNSUPPORTED_MEDIA_TYPE", NOT_CSV_TYPE_MESSAGE);
  const bytes = await readCapped(request.body, request, CSV_BODY_BYTES, CSV_TOO_LARGE_MESSAGE);
  if (bytes instanceof RejectedBody) return bytes;
  if (!json) return new CsvBody(bytes);
  // The JSON export, taken as it is: the same depth bound as any body, a count bound sized
  // for a whole file (JSON_FILE_VALUES), then parsed.
  const parsed = parseJson(bytes, JSON_FILE_VALUES);
  return parsed instanceof RejectedBody ? parsed : new JsonFileBody(parsed);
}

/** The body's bytes, refused when its declared length or the bytes actually read pass `limit`. */
async function readCapped(body: ReadableStream<Uint8Array>, request: Request, limit: number, tooLarge: string): Promise<Uint8Array | RejectedBody> {
  if (Number(request.headers.get("content-length") ?? 0) > limit) return reject("PAYLOAD_TOO_LARGE", tooLarge);
  let bytes: Uint8Array | null;
  try {
    bytes = await readAtMost(body, limit);
  } catch {
    // The client went away or broke the chunked framing mid-body.
    return reject("BAD_REQUEST", "The request body could not be read");
  }
  return bytes ?? reject("PAYLOAD_TOO_LARGE", tooLarge);
}

/** The one HTML form the app serves (a protected link's password page, src/smart/page.ts) posts this. */
const FORM_TYPE = "application/x-www-form-urlencoded";
/**
 * The one /api path a form is posted to: a protected link followed by its Safari path
 * (/api/links/redirect/{code}) shows the password page there, and the page posts back to itself.
 */
const FORM_API_PATH = "/api/links/redirect/";
/** A password form is a few hundred bytes. */
const FORM_BODY_BYTES = 4096;

/** A form body outside /api or on FORM_API_PATH (the password page's), as an object of its fields, or a RejectedBody. */
async function readFormBody(request: Request): Promise<unknown> {
  if (request.body === null) return {};
  const bytes = await readCapped(request.body, request, FORM_BODY_BYTES, TOO_LARGE_MESSAGE);
  if (bytes instanceof RejectedBody) return bytes;
  try {
    return Object.fromEntries(new URLSearchParams(utf8.decode(bytes)));
  } catch {
    return reject("BAD_REQUEST", BAD_UTF8_MESSAGE);
  }
}

const isJsonType = (type: string) => type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * The whole body as JSON, or a RejectedBody. No body at all, or an empty one, reads as {} so
 * that a schema answers "… is required" and routes that take no body are unaffected.
 */
export async function readJsonBody(request: Request, contentType: string, maxValues = MAX_JSON_VALUES): Promise<unknown> {
  if (request.body === null) return {};
  const bytes = await readCapped(request.body, request, MAX_BODY_BYTES, TOO_LARGE_MESSAGE);
  if (bytes instanceof RejectedBody) return bytes;
  if (bytes.byteLength === 0) return {};
  if (!isJsonType(contentType.trim().toLowerCase())) return reject("UNSUPPORTED_MEDIA_TYPE", NOT_JSON_TYPE_MESSAGE);
  return parseJson(bytes, maxValues);
}

/** JSON text within the depth bound and `maxValues`, parsed, or a RejectedBody. */
function parseJson(bytes: Uint8Array, maxValues: number): unknown {
  const shape = jsonShapeProblem(bytes, MAX_JSON_DEPTH, maxValues);
  if (shape) return reject("BAD_REQUEST", shape === "depth" ? TOO_DEEP_MESSAGE : tooManyValuesMessage(maxValues));
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return reject("BAD_REQUEST", BAD_UTF8_MESSAGE);
  }
  try {
    return JSON.parse(text);
  } catch {
    return reject("BAD_REQUEST", BAD_JSON_MESSAGE);
  }
}

/**
 * One parser for every route with a body: bounded read (declared length and bytes actually
 * read, chunked included), JSON only (415 otherwise), bounded depth and count, then JSON.parse.
 * `csvPaths` (exact paths) take a CSV file instead (or a JSON file: this app's JSON export),
 * through readCsvBody and its larger cap, read only once `gate` has found the caller signed in
 * and within its limits. `valueCaps` raises the count bound for the paths it names (bulk create:
 * 1,000 export-shaped items hold more than the 10,000 values any form needs).
 *
 * It is a global parse hook. Such a hook turns Elysia's `parse: "none"` on a route into a
 * second parser (Elysia recognises "none" only when it is a route's sole parse hook), which is
 * why this file once avoided one: the app has no route that needs "none" (nothing is
 * streamed in, no `.mount()`), and a route that ever does must be served outside this app.
 * security.test.ts and hardening.test.ts exercise every route through it.
 */
export function bodyLimit(ctx: AppContext, csvPaths: readonly string[] = [], gate: BodyGate = async () => "read", valueCaps: Readonly<Record<string, number>> = {}) {
  return new Elysia({ name: "body-limit", seed: ctx.instanceId })
    .onParse({ as: "global" }, ({ request, path }, contentType) =>
      csvPaths.includes(path)
        ? readCsvBody(request, contentType, gate, path)
        : (!path.startsWith("/api/") || path.startsWith(FORM_API_PATH)) && contentType.split(";")[0]!.trim().toLowerCase() === FORM_TYPE
          ? readFormBody(request)
          : readJsonBody(request, contentType, valueCaps[path] ?? MAX_JSON_VALUES),
    )
    .onBeforeHandle({ as: "global" }, ({ body }) => {
      // Routes without a schema: a refused body is answered here, after the sign-in check.
      if (body instanceof RejectedBody) throw body.error;
    });
}

/**
 * A route's body schema (`body: jsonBody(CreateTopicBody)`): the same valibot schema the web
 * form uses, checked up to its first problem and answered in the one error shape. Elysia's own
 * validation error would copy the whole body into its message (pretty-printed: 10 MB and
 * 250 ms for a 1 MB array) before the error handler ever saw it; this throws the AppError
 * itself, so a failing body costs what checking it costs.
 */
export function jsonBody<S extends v.GenericSchema>(schema: S): S {
  const validate = (value: unknown) => {
    if (value instanceof RejectedBody) throw value.error;
    // Every body the app takes is an object; valibot's object schema would let an array
    // through (it is an object too) and read it as a body with every field left out.
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw new AppError("VALIDATION", NOT_AN_OBJECT_MESSAGE);
    const result = v.safeParse(schema, value, { abortEarly: true });
    if (result.success) return { value: result.output };
    throw validationFailure(result.issues[0]);
  };
  return { ...schema, "~standard": { ...schema["~standard"], validate } };
}
