// Which encoding a JSON answer goes in, and compressing it: shared by the request thread
// (src/http/compression.ts) and the reader thread, which builds and compresses the answers that
// take milliseconds to make (src/downloads/answers.ts), so neither needs the other's modules.
import { brotliCompressSync, constants } from "node:zlib";

/** Bodies under this many bytes go as they are: compressing them saves less than it costs. */
export const COMPRESS_MIN_BYTES = 1024;

export type Encoding = "br" | "gzip";

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
  // A stream is compressed as it goes (gzipStream), in gzip only.
  if (!streamed && (accepted.has("br") || accepted.has("*"))) return "br";
  if (accepted.has("gzip") || accepted.has("*")) return "gzip";
  return null;
}

// Quality 4 compresses a list page within a millisecond; the highest takes tens of them.
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };

export function compress(bytes: Uint8Array, encoding: Encoding): Uint8Array<ArrayBuffer> {
  return (encoding === "br" ? brotliCompressSync(bytes, BROTLI) : Bun.gzipSync(bytes as Uint8Array<ArrayBuffer>, { level: 6 })) as Uint8Array<ArrayBuffer>;
}

/**
 * A value as the JSON body for a client that sent `acceptEncoding`: compressed when it takes
 * br or gzip and the body is worth it, with the encoding used (null: as it is).
 */
export function encodedJson(value: unknown, acceptEncoding: string | null): { body: Uint8Array<ArrayBuffer>; encoding: Encoding | null } {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  const encoding = bytes.byteLength > COMPRESS_MIN_BYTES ? pickEncoding(acceptEncoding) : null;
  return encoding ? { body: compress(bytes, encoding), encoding } : { body: bytes, encoding: null };
}
