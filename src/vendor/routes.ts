import { Elysia } from "elysia";
// The files are embedded in the binary (see embedded.js); nothing is fetched from a CDN.
import { embedded } from "./embedded.js";
import { FFMPEG_BASE } from "./paths";
import { contentSecurityPolicy, securityHeadersFor } from "../http/spa";

const JS = "text/javascript; charset=utf-8";
// application/wasm is required for WebAssembly.instantiateStreaming.
const WASM = "application/wasm";
const CACHE = "public, max-age=31536000, immutable";

type VendorFile = { name: string; path: string; type: string };
export const VENDOR_FILES: VendorFile[] = [
  { name: "ffmpeg-core.js", path: embedded.coreJs, type: JS },
  { name: "ffmpeg-core.wasm", path: embedded.coreWasm, type: WASM },
  { name: "worker.js", path: embedded.workerJs, type: JS },
  { name: "const.js", path: embedded.constJs, type: JS },
  { name: "errors.js", path: embedded.errorsJs, type: JS },
];

// The engine runs as a module worker, which takes its CSP from its own response (not the
// page's): the app's policy, so it may load this origin's files and compile wasm, nothing else.
const SECURITY = securityHeadersFor(contentSecurityPolicy([]));

/**
 * Serves the embedded video engine under /vendor/ffmpeg-{version}/. The plain bytes are sent
 * straight from the embedded file (nothing held in memory); on first use a gzip copy is made
 * once, chunk by chunk (the event loop is never blocked for long), and kept: ~10 MB for the
 * 32 MB wasm, the only copy the process holds (it held both, ~45 MB, before). Until it exists
 * the plain file is sent.
 */
export function vendorRoutes() {
  const app = new Elysia({ name: "vendor" });
  for (const f of VENDOR_FILES) {
    const file = Bun.file(f.path);
    let gz: Uint8Array<ArrayBuffer> | null = null;
    let compressing = false;
    app.get(`${FFMPEG_BASE}/${f.name}`, ({ request }) => {
      if (!compressing) {
        compressing = true;
        // Streamed through the compressor in chunks: the plain file is never read whole. One
        // full collection afterwards (once per process) returns the stream's buffers, ~30 MB.
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
      const headers: Record<string, string> = {
        "content-type": f.type,
        "cache-control": CACHE,
        vary: "accept-encoding",
        ...SECURITY,
      };
      const acceptsGzip = (request.headers.get("accept-encoding") ?? "").includes("gzip");
      if (gz && acceptsGzip) return new Response(gz, { headers: { ...headers, "content-encoding": "gzip" } });
      return new Response(file, { headers });
    });
  }
  return app;
}
