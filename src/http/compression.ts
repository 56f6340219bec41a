// Compressed API answers, once for every route (issue 21: a 100,001-link list was 33 MB on the
// wire even to a client that asked for gzip). A list page of 100 links is ~40 KB of JSON and
// about a tenth of it compressed.
import { Elysia } from "elysia";
import { brotliCompressSync, constants } from "node:zlib";
import { gzipped } from "../shared/gzipStream";
import type { AppContext } from "../context";

/** Bodies under this many bytes go as they are: compressing them saves less than it costs. */
export const COMPRESS_MIN_BYTES = 1024;

/** Types worth compressing when a route answers with a Response of its own (CSV and JSON downloads). */
const COMPRESSIBLE = /^(application\/json|text\/csv)\b/i;

type Encoding = "br" | "gzip";

/**
 * The encoding to use: br, else gzip, when the client lists it with a quality above zero
 * (`gzip;q=0` refuses it). Anything else (identity, deflate, a malformed header) gets none.
 */
export function pickEncoding(header: string | null, streamed = false): Encoding | null {
  if (!header) return null;
  const accepted = new Set<string>();
  for (const part of header.slice(0, 500).split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    if (q && !(Number(q.slice(2)) > 0)) continue;
    if (name) accepted.add(name);
  }
  // A stream is compressed as it goes (gzipStream below), in gzip only.
  if (!streamed && (accepted.has("br") || accepted.has("*"))) return "br";
  if (accepted.has("gzip") || accepted.has("*")) return "gzip";
  return null;
}

// Quality 4 compresses a list page within a millisecond; the highest takes tens of them.
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };

function compress(bytes: Uint8Array, encoding: Encoding): Uint8Array<ArrayBuffer> {
  return (encoding === "br" ? brotliCompressSync(bytes, BROTLI) : Bun.gzipSync(bytes as Uint8Array<ArrayBuffer>, { level: 6 })) as Uint8Array<ArrayBuffer>;
}

/**
 * After every handler: a JSON value (what most routes return) of more than COMPRESS_MIN_BYTES,
 * or a JSON or CSV Response (the downloads, streamed exports included) is compressed when the
 * request accepts it. Never a redirect or an empty answer (a 302 has no body worth it), never a
 * response that already names its encoding; errors leave through onError, uncompressed and small.
 */
export function compression(ctx: AppContext) {
  return new Elysia({ name: "compression", seed: ctx.instanceId }).mapResponse({ as: "global" }, ({ responseValue, set, request }) => {
    const status = typeof set.status === "number" ? set.status : 200;
    if (status < 200 || status >= 300 || status === 204) return;
    if (responseValue instanceof Response) return compressResponse(responseValue, request);
    if (responseValue === null || typeof responseValue !== "object" || (responseValue.constructor !== Object && responseValue.constructor !== Array)) return;
    const text = JSON.stringify(responseValue);
    set.headers.vary = "accept-encoding";
    set.headers["content-type"] = "application/json";
    const bytes = new TextEncoder().encode(text);
    const encoding = bytes.byteLength > COMPRESS_MIN_BYTES ? pickEncoding(request.headers.get("accept-encoding")) : null;
    if (!encoding) return new Response(bytes, { status });
    set.headers["content-encoding"] = encoding;
    return new Response(compress(bytes, encoding), { status });
  });
}

function compressResponse(res: Response, request: Request): Response | undefined {
  const type = res.headers.get("content-type") ?? "";
  if (!res.body || res.status < 200 || res.status >= 300 || res.headers.has("content-encoding") || !COMPRESSIBLE.test(type)) return;
  const length = Number(res.headers.get("content-length") ?? Number.NaN);
  if (length <= COMPRESS_MIN_BYTES) return;
  const encoding = pickEncoding(request.headers.get("accept-encoding"), true);
  const headers = new Headers(res.headers);
  headers.append("vary", "accept-encoding");
  if (!encoding) return new Response(res.body, { status: res.status, headers });
  headers.set("content-encoding", encoding);
  headers.delete("content-length");
  return new Response(gzipped(res.body), { status: res.status, headers });
}
