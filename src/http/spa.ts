import { Elysia } from "elysia";
import { fileURLToPath } from "node:url";
import index from "../../web/index.html";
import { log } from "./log";

type Bytes = Uint8Array<ArrayBuffer>;
type Entry = { body: Bytes; gz: Bytes | null; headers: Record<string, string> };
type BundleFile = { path: string; loader: string; headers: Record<string, string> };
type Bundle = { index: string; files?: BundleFile[] };

const IMMUTABLE = "public, max-age=31536000, immutable";
const TEXT = /^(text\/|application\/(javascript|json)|image\/svg)/;

/** Inline <script> elements without src (web/index.html's theme script) as CSP sha256 sources. */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    if (/\bsrc\s*=/i.test(m[1]!) || !m[2]!.trim()) continue;
    hashes.add(`'sha256-${new Bun.CryptoHasher("sha256").update(m[2]!).digest("base64")}'`);
  }
  return [...hashes];
}

/**
 * The app's Content-Security-Policy. Only this origin's files run: the one inline script is
 * allowed by its hash (taken from the HTML actually served, so editing it cannot silently
 * break), 'wasm-unsafe-eval' lets the QR video engine compile its wasm (it allows no JS eval),
 * and blob: covers the QR page's previews, rendered video and engine worker. Styles come from
 * files only: React's style={{}} and the UI libraries set element styles through the CSSOM
 * (element.style), which CSP does not govern, so no 'unsafe-inline' is needed (the whole e2e
 * suite runs with this policy and no violation). Nothing may frame the app, and forms and
 * <base> cannot leave it.
 */
export function contentSecurityPolicy(scriptHashes: string[]): string {
  return [
    "default-src 'self'",
    ["script-src 'self' 'wasm-unsafe-eval'", ...scriptHashes].join(" "),
    "worker-src 'self' blob:",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Headers for every file the web app is made of (HTML, chunks, styles). */
export function securityHeadersFor(csp: string): Record<string, string> {
  return {
    "content-security-policy": csp,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "strict-origin-when-cross-origin",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
  };
}

function entry(body: Bytes, headers: Record<string, string>, cache: string): Entry {
  const gz = TEXT.test(headers["content-type"] ?? "") ? Bun.gzipSync(body) : null;
  return { body, gz, headers: { ...headers, "cache-control": cache } };
}

/** The built web app: embedded in the compiled binary, or built once at start from source. */
async function loadWebApp(): Promise<{ html: Entry; assets: Map<string, Entry> }> {
  const assets = new Map<string, Entry>();
  const bundle = index as unknown as Bundle;
  let html: Entry | null = null;
  if (bundle.files?.length) {
    for (const f of bundle.files) {
      const body = new Uint8Array(await Bun.file(f.path).arrayBuffer());
      if (f.path === bundle.index) html = entry(body, f.headers, "no-cache");
      else assets.set("/" + f.path.split("/").pop(), entry(body, f.headers, IMMUTABLE));
    }
  } else {
    // Running from source: build the same production bundle the binary embeds.
    const started = performance.now();
    const result = await Bun.build({
      entrypoints: [fileURLToPath(new URL("../../web/index.html", import.meta.url))],
      minify: true,
      publicPath: "/",
      define: { "process.env.NODE_ENV": '"production"' },
    });
    if (!result.success) throw new Error(`Web build failed:\n${result.logs.join("\n")}`);
    for (const out of result.outputs) {
      const body = new Uint8Array(await out.arrayBuffer());
      const name = out.path.replace(/^\.\//, "");
      const headers = { "content-type": out.type };
      if (name.endsWith(".html")) html = entry(body, headers, "no-cache");
      else assets.set("/" + name, entry(body, headers, IMMUTABLE));
    }
    log.debug("web app built", { ms: Math.round(performance.now() - started) });
  }
  if (!html) throw new Error("The web bundle has no index.html");
  // One policy for the HTML and every chunk: a chunk's own CSP only matters if it is ever run
  // as a worker, and then it should be held to the same rules as the page.
  const csp = contentSecurityPolicy(inlineScriptHashes(new TextDecoder().decode(html.body)));
  const secure = securityHeadersFor(csp);
  Object.assign(html.headers, secure);
  for (const e of assets.values()) Object.assign(e.headers, secure);
  return { html, assets };
}

export function send(e: Entry, request: Request, status = 200) {
  const gzip = e.gz && (request.headers.get("accept-encoding") ?? "").includes("gzip");
  return new Response(gzip ? e.gz : e.body, {
    status,
    headers: { ...e.headers, vary: "accept-encoding", ...(gzip ? { "content-encoding": "gzip" } : {}) },
  });
}

/**
 * Serves the React app: hashed chunks with year-long caching and gzip, the HTML for every
 * other path (the client router shows its own 'Page Not Found').
 */
export async function spaPlugin() {
  const { html, assets } = await loadWebApp();
  const app = new Elysia({ name: "spa" });
  for (const [path, e] of assets) app.get(path, ({ request }) => send(e, request));
  const page = ({ request }: { request: Request }) => send(html, request);
  return app.get("/", page).get("/*", page);
}
