// Compressed API answers, once for every route (issue 21: a 100,001-link list was 33 MB on the
// wire even to a client that asked for gzip). A list page of 100 links is ~40 KB of JSON and
// about a tenth of it compressed.
import { Elysia } from "elysia";
import { brotliCompressSync, constants, crc32, deflateRawSync } from "node:zlib";
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
  return new Response(gzipStream(res.body), { status: res.status, headers });
}

/** Bytes of a streamed body deflated in one synchronous call: ~1 ms of the request thread. */
const GZIP_PIECE = 64 * 1024;
const GZIP_HEADER = Uint8Array.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
/** An empty final deflate block (fixed Huffman, BFINAL set): the end of the stream. */
const DEFLATE_END = Uint8Array.from([3, 0]);

/**
 * A streamed body gzipped as it is read, one piece per pull: a piece is deflated on its own and
 * ended with a sync flush, so the pieces join into one deflate stream (RFC 1951), framed by the
 * gzip header and a trailer of the CRC-32 and length of everything (RFC 1952). It is pulled by
 * the socket, so it reads its source no faster than the client takes the answer; the web's
 * CompressionStream, piped, grew the process by ~340 MB while four 250,000-link exports streamed
 * to gzip clients (docs/performance.md, issue 21). Each piece starts with an empty history,
 * which costs a little ratio on 64 KB of text.
 */
export function gzipStream(source: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let pending: Uint8Array | null = null;
  let at = 0;
  let crc = 0;
  let size = 0;
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(GZIP_HEADER);
        return;
      }
      while (!pending || at >= pending.byteLength) {
        const next = await reader.read();
        if (next.done) {
          const trailer = new Uint8Array(8);
          const view = new DataView(trailer.buffer);
          view.setUint32(0, crc >>> 0, true);
          view.setUint32(4, size >>> 0, true);
          controller.enqueue(DEFLATE_END);
          controller.enqueue(trailer);
          controller.close();
          return;
        }
        pending = next.value;
        at = 0;
      }
      const piece = pending.subarray(at, at + GZIP_PIECE);
      at += piece.byteLength;
      crc = crc32(piece, crc);
      size += piece.byteLength;
      controller.enqueue(deflateRawSync(piece, { level: 4, finishFlush: constants.Z_SYNC_FLUSH }));
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
