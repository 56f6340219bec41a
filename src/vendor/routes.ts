import { Elysia } from "elysia";
// Nothing is fetched from a CDN: from source the files come from node_modules (embedded.js);
// the compiled binary carries build-time gzip and brotli copies (builtAssets).
import { embedded } from "./embedded.js";
import { FFMPEG_BASE } from "../shared/ffmpegPaths";
import { accepts, contentSecurityPolicy, securityHeadersFor } from "../http/spa";
import { builtAssets, type BuiltAssets } from "../http/builtAssets";

const JS = "text/javascript; charset=utf-8";
// application/wasm is required for WebAssembly.instantiateStreaming.
const WASM = "application/wasm";
const CACHE = "public, max-age=31536000, immutable";

type VendorFile = { name: string; path: string | null; type: string };
/** The engine's files; `path` (the plain file) is null inside the compiled binary. */
export const VENDOR_FILES: VendorFile[] = [
  { name: "ffmpeg-core.js", path: embedded?.coreJs ?? null, type: JS },
  { name: "ffmpeg-core.wasm", path: embedded?.coreWasm ?? null, type: WASM },
  { name: "worker.js", path: embedded?.workerJs ?? null, type: JS },
  { name: "const.js", path: embedded?.constJs ?? null, type: JS },
  { name: "errors.js", path: embedded?.errorsJs ?? null, type: JS },
];

// The engine runs as a module worker, which takes its CSP from its own response (not the
// page's): the app's policy, so it may load this origin's files and compile wasm, nothing else.
const SECURITY = securityHeadersFor(contentSecurityPolicy([]));

type Prebuilt = BuiltAssets["vendor"][string];

/** The binary's way: the compressed copy the client takes, straight from the embedded file. */
function sendPrebuilt(pre: Prebuilt, headers: Record<string, string>, request: Request) {
  const ae = request.headers.get("accept-encoding");
  if (pre.br && accepts(ae, "br")) return new Response(Bun.file(pre.br), { headers: { ...headers, "content-encoding": "br" } });
  if (pre.gzip && accepts(ae, "gzip")) return new Response(Bun.file(pre.gzip), { headers: { ...headers, "content-encoding": "gzip" } });
  // A client that takes neither (a browser always takes gzip; curl without --compressed does
  // not): inflated while it is sent, so the binary need not carry the 32 MB plain wasm.
  return new Response(Bun.file(pre.file).stream().pipeThrough(new DecompressionStream("gzip")), { headers });
}

/** Running from source: the plain file, and a gzip copy made once, in the background, on first use. */
function lazyGzip(path: string) {
  const file = Bun.file(path);
  let gz: Uint8Array<ArrayBuffer> | null = null;
  let compressing = false;
  return (headers: Record<string, string>, request: Request) => {
    if (!compressing) {
      compressing = true;
      // Streamed through the compressor in chunks: the plain file is never read whole.
      new Response(file.stream().pipeThrough(new CompressionStream("gzip")))
        .bytes()
        .then(
          (z) => {
            gz = z;
            Bun.gc(true);
          },
          () => {},
        );
    }
    if (gz && accepts(request.headers.get("accept-encoding"), "gzip")) return new Response(gz, { headers: { ...headers, "content-encoding": "gzip" } });
    return new Response(file, { headers });
  };
}

/**
 * Serves the video engine under /vendor/ffmpeg-{version}/. The compiled binary sends the
 * brotli or gzip copy made at build time from the first request on (8.4 MB or 10.2 MB for the
 * 32 MB wasm); from source, the plain file until a gzip copy has been made.
 */
export function vendorRoutes(prebuilt: BuiltAssets["vendor"] | null = builtAssets?.vendor ?? null) {
  const app = new Elysia({ name: "vendor" });
  for (const f of VENDOR_FILES) {
    const headers: Record<string, string> = {
      "content-type": f.type,
      "cache-control": CACHE,
      vary: "accept-encoding",
      ...SECURITY,
    };
    const pre = prebuilt?.[f.name];
    if (pre) app.get(`${FFMPEG_BASE}/${f.name}`, ({ request }) => sendPrebuilt(pre, headers, request));
    else if (f.path) {
      const send = lazyGzip(f.path);
      app.get(`${FFMPEG_BASE}/${f.name}`, ({ request }) => send(headers, request));
    } else throw new Error(`The video engine file ${f.name} is missing from this build`);
  }
  return app;
}
