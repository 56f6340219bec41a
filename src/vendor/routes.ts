import { Elysia } from "elysia";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
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

const gzipAsync = promisify(gzip);
// The engine runs as a module worker, which takes its CSP from its own response (not the
// page's): the app's policy, so it may load this origin's files and compile wasm, nothing else.
const SECURITY = securityHeadersFor(contentSecurityPolicy([]));

/**
 * Serves the embedded video engine under /vendor/ffmpeg-{version}/. Files are read on first
 * use only (the wasm is 32 MB) and gzipped once on a libuv thread, so the event loop never
 * blocks on compression; until the gzip copy exists the plain bytes are sent.
 */
export function vendorRoutes() {
  const app = new Elysia({ name: "vendor" });
  for (const f of VENDOR_FILES) {
    let raw: Promise<Uint8Array<ArrayBuffer>> | null = null;
    let gz: Uint8Array<ArrayBuffer> | null = null;
    let compressing = false;
    const load = () => (raw ??= Bun.file(f.path).bytes());
    app.get(`${FFMPEG_BASE}/${f.name}`, async ({ request }) => {
      const body = await load();
      if (!compressing) {
        compressing = true;
        gzipAsync(body).then((z) => (gz = new Uint8Array(z)), () => {});
      }
      const headers: Record<string, string> = {
        "content-type": f.type,
        "cache-control": CACHE,
        vary: "accept-encoding",
        ...SECURITY,
      };
      const acceptsGzip = (request.headers.get("accept-encoding") ?? "").includes("gzip");
      if (gz && acceptsGzip) return new Response(gz, { headers: { ...headers, "content-encoding": "gzip" } });
      return new Response(body, { headers });
    });
  }
  return app;
}
