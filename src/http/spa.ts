import { Elysia } from "elysia";
import { fileURLToPath } from "node:url";
import { builtAssets } from "./builtAssets";
import { SESSION_COOKIE } from "./auth";
import { log } from "./log";

type Bytes = Uint8Array<ArrayBuffer>;
type Entry = { body: Bytes; gz: Bytes | null; br: Bytes | null; headers: Record<string, string> };

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

function entry(body: Bytes, gz: Bytes | null, br: Bytes | null, headers: Record<string, string>, cache: string): Entry {
  return { body, gz, br, headers: { ...headers, "cache-control": cache } };
}

/** Whether Accept-Encoding allows `coding` (listed, and not refused with q=0). */
export function accepts(header: string | null, coding: string): boolean {
  for (const part of (header ?? "").toLowerCase().split(",")) {
    const [name, ...params] = part.split(";").map((s) => s.trim());
    if (name !== coding) continue;
    const q = params.find((p) => p.startsWith("q="));
    return !q || Number(q.slice(2)) > 0;
  }
  return false;
}

/** Options shared by the binary's build (scripts/build.ts) and a run from source. */
export const WEB_BUILD_OPTIONS = {
  // The browser bundle is minified in full (identifiers too: only the server's must stay
  // readable, for Elysia) and split, so each screen, and QR, video, ZIP and the chart, is its
  // own chunk fetched when used (docs/performance.md, "Web app").
  splitting: true,
  minify: true,
  publicPath: "/",
  // Hashed names, all at the root: short codes never contain "." and "chunk-" is reserved.
  naming: { entry: "[name].[ext]", chunk: "chunk-[hash].[ext]", asset: "asset-[hash].[ext]" },
  define: { "process.env.NODE_ENV": '"production"' },
  // Which chunk holds which screen, for screenPreloads.
  metafile: true,
} as const;

/**
 * App paths whose first screen is a lazy chunk (web/routes.tsx) rather than the entry: the
 * HTML for that path names the chunk and every chunk it imports in its Link header
 * (rel=modulepreload), so they download beside the entry instead of one after another. The
 * dashboard (`/`) is in the entry itself. A lazy screen that is often the first one can be
 * added here.
 */
const FIRST_SCREENS: Record<string, string> = { "/auth": "web/auth/AuthPage.tsx" };

/** Per path of FIRST_SCREENS, the URLs ("/chunk-….js") of its chunk and its static imports, the entry's excepted. */
export function screenPreloads(meta: Bun.BuildMetafile): Record<string, string[]> {
  const url = (p: string) => "/" + p.replace(/^\.?\//, "");
  const scripts = Object.entries(meta.outputs).filter(([path]) => path.endsWith(".js"));
  const entry = scripts.find(([, o]) => o.entryPoint?.endsWith("web/index.html"))?.[0];
  const preloads: Record<string, string[]> = {};
  for (const [route, source] of Object.entries(FIRST_SCREENS)) {
    const start = scripts.find(([, o]) => o.entryPoint?.endsWith(source))?.[0];
    if (!start) throw new Error(`screenPreloads: no chunk for ${source}`);
    const seen = new Set<string>();
    const visit = (path: string) => {
      if (seen.has(url(path)) || (entry && url(path) === url(entry))) return;
      seen.add(url(path));
      for (const i of meta.outputs[path]?.imports ?? []) if (i.kind === "import-statement") visit(i.path);
    };
    visit(start);
    preloads[route] = [...seen];
  }
  return preloads;
}

/** gzip at the highest level, kept only when it is smaller (tiny files can grow). */
export function gzipIfSmaller(body: Bytes): Bytes | null {
  const gz = Bun.gzipSync(body, { level: 9 });
  return gz.length < body.length ? gz : null;
}

// One bundle per process when running from source: every createApp (each test file makes
// one) shares it instead of bundling the app again.
let fromSource: Promise<{ files: { path: string; body: Bytes; type: string }[]; preloads: Record<string, string[]> }> | null = null;

/** Running from source: bundle the web app in memory, the same way the binary's build does. */
function buildFromSource() {
  fromSource ??= (async () => {
    const started = performance.now();
    const result = await Bun.build({ entrypoints: [fileURLToPath(new URL("../../web/index.html", import.meta.url))], ...WEB_BUILD_OPTIONS });
    if (!result.success) throw new Error(`Web build failed:\n${result.logs.join("\n")}`);
    const files = await Promise.all(
      result.outputs.map(async (out) => ({ path: "/" + out.path.replace(/^\.?\//, ""), body: new Uint8Array(await out.arrayBuffer()), type: out.type })),
    );
    log.debug("web app built from source", { ms: Math.round(performance.now() - started) });
    return { files, preloads: screenPreloads(result.metafile!) };
  })();
  return fromSource;
}

/** The web app: embedded pre-built and pre-compressed in the binary, or bundled at start from source. */
async function loadWebApp(): Promise<{ html: Entry; assets: Map<string, Entry>; preloads: Record<string, string[]> }> {
  const assets = new Map<string, Entry>();
  let preloads: Record<string, string[]>;
  let html: Entry | null = null;
  const add = (path: string, body: Bytes, gz: Bytes | null, br: Bytes | null, type: string) => {
    if (path === "/index.html") html = entry(body, gz, br, { "content-type": type }, "no-cache");
    else assets.set(path, entry(body, gz, br, { "content-type": type }, IMMUTABLE));
  };
  if (builtAssets) {
    // Held in memory (about 1 MB with the gzip copies): these are the hottest files.
    for (const [path, f] of Object.entries(builtAssets.web)) {
      const gz = f.gzip ? await Bun.file(f.gzip).bytes() : null;
      const br = f.br ? await Bun.file(f.br).bytes() : null;
      add(path, await Bun.file(f.file).bytes(), gz, br, f.type);
    }
    preloads = builtAssets.preloads;
  } else {
    // gzip only: brotli at its best takes seconds, which the binary's build spends instead.
    const built = await buildFromSource();
    for (const f of built.files) add(f.path, f.body, TEXT.test(f.type) ? gzipIfSmaller(f.body) : null, null, f.type);
    preloads = built.preloads;
  }
  const page = html as Entry | null;
  if (!page) throw new Error("The web bundle has no index.html");
  // One policy for the HTML and every chunk: a chunk's own CSP only matters if it is ever run
  // as a worker, and then it should be held to the same rules as the page.
  const csp = contentSecurityPolicy(inlineScriptHashes(new TextDecoder().decode(page.body)));
  const secure = securityHeadersFor(csp);
  Object.assign(page.headers, secure);
  for (const e of assets.values()) Object.assign(e.headers, secure);
  return { html: page, assets, preloads };
}

export function send(e: Entry, request: Request, status = 200, extra?: Record<string, string>) {
  const ae = request.headers.get("accept-encoding");
  const [body, coding] = e.br && accepts(ae, "br") ? [e.br, "br"] : e.gz && accepts(ae, "gzip") ? [e.gz, "gzip"] : [e.body, null];
  return new Response(body, {
    status,
    headers: { ...e.headers, vary: "accept-encoding", ...(coding ? { "content-encoding": coding } : {}), ...extra },
  });
}

// The dashboard's first data, asked for by the browser while the script still downloads
// (a cold load otherwise waits for the script, then /api/user, then /api/topics, one after
// the other). The app's own fetches (credentials: "include") take up these responses, so
// nothing is requested twice. /api/topics only when a session cookie is there at all: a
// signed-out visitor is sent to /auth and would never use it.
const PRELOAD_USER = "</api/user>; rel=preload; as=fetch; crossorigin=use-credentials";
const PRELOAD_TOPICS = "</api/topics>; rel=preload; as=fetch; crossorigin=use-credentials";

function dashboardPreloads(request: Request): Record<string, string> {
  const signedIn = request.headers.get("cookie")?.includes(`${SESSION_COOKIE}=`) ?? false;
  return { link: signedIn ? `${PRELOAD_USER}, ${PRELOAD_TOPICS}` : PRELOAD_USER };
}

/** A lazy first screen (FIRST_SCREENS): the session check, and its chunks as module preloads. */
function screenLinks(chunks: string[]): Record<string, string> {
  return { link: [PRELOAD_USER, ...chunks.map((c) => `<${c}>; rel=modulepreload`)].join(", ") };
}

/**
 * Serves the React app: hashed chunks with year-long caching and gzip, the HTML for every
 * other path (the client router shows its own 'Page Not Found').
 */
const PARTLESS = /^\/(share|invite)\/?$/;

/**
 * `before`: asked first for a path no route serves (the app's pages are client-routed): an
 * answer of its own, or null for the app. The redirects use it for imported multi-segment codes.
 */
export async function spaPlugin(before: (request: Request, server: unknown) => Response | null = () => null) {
  const { html, assets, preloads } = await loadWebApp();
  const app = new Elysia({ name: "spa" });
  for (const [path, e] of assets) app.get(path, ({ request }) => send(e, request));
  for (const [path, chunks] of Object.entries(preloads)) {
    const links = screenLinks(chunks);
    app.get(path, ({ request }) => send(html, request, 200, links));
  }
  // /share/ and /invite/ without their part name no page: the app shows 'Page Not Found'
  // there, and the status says so too (issue 13).
  const page = ({ request, server }: { request: Request; server: unknown }) =>
    before(request, server) ?? send(html, request, PARTLESS.test(new URL(request.url).pathname) ? 404 : 200);
  return app.get("/", ({ request }) => send(html, request, 200, dashboardPreloads(request))).get("/*", page);
}
