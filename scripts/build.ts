// Compiles the single executable: server, production web bundle, migrations and vendored
// assets all inside dist/threadlink. Run with `npm run build` (OUTFILE=… for another path).
//
// 1. The web app is bundled for the browser on its own: fully minified and code-split
//    (src/http/spa.ts's WEB_BUILD_OPTIONS), into a staging folder next to .tmp/.
// 2. Every text file of it, and the video engine, get gzip and brotli copies: compression
//    happens here, once, not in the running server.
// 3. A generated module lists those files as `with { type: "file" }` imports (and, per lazy
//    first screen, the chunks its HTML preloads: screenPreloads) and stands in
//    for src/http/builtAssets.ts (and the plain video engine of src/vendor/embedded.js) in
//    the compiled server, which serves them as they are.
import { brotliCompressSync, constants } from "node:zlib";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { WEB_BUILD_OPTIONS, gzipIfSmaller, screenPreloads } from "../src/http/spa";
import { VENDOR_FILES } from "../src/vendor/routes";

const root = resolve(import.meta.dir, "..");
const outfile = resolve(process.env.OUTFILE ?? "dist/threadlink");
const started = performance.now();
// Per output file, so builds to different paths (parallel checkouts, CI) never share one.
const staging = join(root, ".tmp", "build", outfile.replace(/[^A-Za-z0-9_.-]+/g, "_"));
const webDir = join(staging, "web");
rmSync(staging, { recursive: true, force: true });
mkdirSync(webDir, { recursive: true });

// --- 1. The browser bundle --------------------------------------------------------------
const web = await Bun.build({ entrypoints: [join(root, "web/index.html")], outdir: webDir, ...WEB_BUILD_OPTIONS });
if (!web.success) throw new Error(`Web build failed:\n${web.logs.join("\n")}`);

const TEXT = /^(text\/|application\/(javascript|json)|image\/svg)/;
type Built = { file: string; gzip: string | null; type?: string; br?: string | null };
const webFiles: Record<string, Built> = {};
let webBytes = 0;
let webGzip = 0;
let webBrotli = 0;
for (const out of web.outputs) {
  const body = new Uint8Array(await out.arrayBuffer());
  const text = TEXT.test(out.type);
  const gz = text ? gzipIfSmaller(body) : null;
  // Brotli at its best (quality 11) for the browser's files: ~15 % fewer bytes than gzip -9
  // for browsers that take it (Chromium does, on http://127.0.0.1 too); a few seconds once.
  const br = text ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }) : null;
  const keepBr = br && br.length < (gz ?? body).length ? br : null;
  if (gz) writeFileSync(`${out.path}.gz`, gz);
  if (keepBr) writeFileSync(`${out.path}.br`, keepBr);
  webFiles["/" + basename(out.path)] = { file: out.path, gzip: gz ? `${out.path}.gz` : null, br: keepBr ? `${out.path}.br` : null, type: out.type };
  webBytes += body.length;
  webGzip += gz?.length ?? body.length;
  webBrotli += keepBr?.length ?? gz?.length ?? body.length;
}

// --- 2. The video engine, compressed once (cached by content, so rebuilds skip it) -------
// Brotli quality 9: 8.4 MB for the 32 MB wasm in ~7 s (gzip -9: 10.2 MB). Quality 11 would
// take minutes for another few percent.
const cache = join(root, ".tmp", "build", "vendor-cache");
mkdirSync(cache, { recursive: true });
function cached(name: string, hash: string, ext: string, make: () => Uint8Array) {
  const path = join(cache, `${name}-${hash}.${ext}`);
  if (!existsSync(path)) {
    // Written whole, then renamed: a parallel build never reads half a file.
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, make());
    renameSync(tmp, path);
  }
  return path;
}
const vendorFiles: Record<string, Built> = {};
for (const f of VENDOR_FILES) {
  if (!f.path) throw new Error(`${f.name}: the build runs from source, where every engine file has a path`);
  const body = await Bun.file(f.path).bytes();
  const hash = Bun.hash(body).toString(36);
  const gzip = cached(f.name, hash, "gz", () => Bun.gzipSync(body, { level: 9 }));
  const br = cached(f.name, hash, "br", () =>
    brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
  );
  vendorFiles[f.name] = { file: gzip, gzip, br };
}

// --- 3. The generated module and the compile ---------------------------------------------
const imports: string[] = [];
const ref = (path: string | null | undefined) => {
  if (!path) return "null";
  imports.push(`import f${imports.length} from ${JSON.stringify(path)} with { type: "file" };`);
  return `f${imports.length - 1}`;
};
const entries = (files: Record<string, Built>) =>
  Object.entries(files)
    .map(([key, f]) => {
      const fields = [`file: ${ref(f.file)}`, `gzip: ${ref(f.gzip)}`];
      if (f.type) fields.push(`type: ${JSON.stringify(f.type)}`);
      if (f.br !== undefined) fields.push(`br: ${ref(f.br)}`);
      return `  ${JSON.stringify(key)}: { ${fields.join(", ")} },`;
    })
    .join("\n");
const webList = entries(webFiles);
const vendorList = entries(vendorFiles);
const generated = `// Generated by scripts/build.ts for ${basename(outfile)}; stands in for src/http/builtAssets.ts.
${imports.join("\n")}
export const builtAssets = {
web: {
${webList}
},
vendor: {
${vendorList}
},
preloads: ${JSON.stringify(screenPreloads(web.metafile!))},
};
`;
const generatedPath = join(staging, "builtAssets.ts");
writeFileSync(generatedPath, generated);

const result = await Bun.build({
  // The click worker, the reader thread and the webhook sender are entrypoints of their own:
  // `new Worker(new URL(…))` in src/analytics/recorder.ts, src/db/reader.ts and
  // src/webhooks/sender.ts finds them inside the binary.
  entrypoints: [
    join(root, "src/main.ts"),
    join(root, "src/analytics/clickWorker.ts"),
    join(root, "src/downloads/worker.ts"),
    join(root, "src/webhooks/senderThread.ts"),
  ],
  compile: {
    outfile,
    // The binary must not pick up a bunfig.toml preload or a .env from whatever folder it is
    // started in: configuration is the environment only.
    autoloadBunfig: false,
    autoloadDotenv: false,
  },
  // Identifiers are not minified: Elysia reads handler source to decide what to parse
  // (body, query…), which mangled parameter names would defeat.
  minify: { syntax: true, whitespace: true, identifiers: false },
  define: { "process.env.NODE_ENV": '"production"' },
  plugins: [
    {
      name: "threadlink-built-assets",
      setup(build) {
        build.onLoad({ filter: /[\\/]src[\\/]http[\\/]builtAssets\.ts$/ }, () => ({ contents: generated, loader: "ts" }));
        // The plain engine is not embedded: the binary carries its gzip and brotli copies only.
        build.onLoad({ filter: /[\\/]src[\\/]vendor[\\/]embedded\.js$/ }, () => ({ contents: "export const embedded = null;", loader: "js" }));
      },
    },
  ],
});
if (!result.success) throw new Error(`Compile failed:\n${result.logs.join("\n")}`);

const size = Bun.file(outfile).size;
const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
console.log(
  `Built ${outfile} (${mib(size)}) in ${Math.round(performance.now() - started)} ms; web app ${Object.keys(webFiles).length} files, ${Math.round(webBytes / 1024)} kB (${Math.round(webGzip / 1024)} kB gzipped, ${Math.round(webBrotli / 1024)} kB brotli)`,
);
