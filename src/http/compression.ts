// Compressed API answers, once for every route (issue 21: a 100,001-link list was 33 MB on the
// wire even to a client that asked for gzip). A list page of 100 links is ~40 KB of JSON and
// about a tenth of it compressed.
import { Elysia } from "elysia";
import { gzipped } from "../shared/gzipStream";
import { COMPRESS_MIN_BYTES, encodedJson, pickEncoding } from "../shared/encoding";
import type { AppContext } from "../context";

/** Types worth compressing when a route answers with a Response of its own (CSV and JSON downloads). */
const COMPRESSIBLE = /^(application\/json|text\/csv)\b/i;

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
    set.headers.vary = "accept-encoding";
    set.headers["content-type"] = "application/json";
    const { body, encoding } = encodedJson(responseValue, request.headers.get("accept-encoding"));
    if (encoding) set.headers["content-encoding"] = encoding;
    return new Response(body, { status });
  });
}

function compressResponse(res: Response, request: Request): Response | undefined {
  const type = res.headers.get("content-type") ?? "";
  // An answer made elsewhere that chose its encoding already (src/downloads/answers.ts) says so by its vary.
  if (!res.body || res.status < 200 || res.status >= 300 || res.headers.has("content-encoding") || res.headers.get("vary") === "accept-encoding" || !COMPRESSIBLE.test(type)) return;
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
