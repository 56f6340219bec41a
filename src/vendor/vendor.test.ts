import { afterAll, describe, expect, test } from "bun:test";
import corePkg from "../../node_modules/@ffmpeg/core/package.json";
import { setup } from "../test/helpers";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync } from "node:zlib";
import { Elysia } from "elysia";
import { accepts } from "../http/spa";
import { vendorRoutes } from "./routes";
import { FFMPEG_BASE, FFMPEG_CORE_URL, FFMPEG_CORE_VERSION, FFMPEG_WASM_URL, FFMPEG_WORKER_URL } from "../shared/ffmpegPaths";

const { app } = await setup();
/** Raw bytes are needed here (setup().call decodes bodies as text). */
async function get(path: string, acceptEncoding: string) {
  const res = await app.handle(new Request(`http://localhost:3000${path}`, { headers: { "accept-encoding": acceptEncoding } }));
  return { res, body: new Uint8Array(await res.arrayBuffer()) as Uint8Array<ArrayBuffer> };
}

describe("vendor: the embedded video engine", () => {
  test("the versioned path matches the installed @ffmpeg/core", () => {
    expect(corePkg.version).toBe(FFMPEG_CORE_VERSION);
    // Single-threaded build: no SharedArrayBuffer, so no COOP/COEP headers are needed.
    expect(corePkg.description).toContain("single thread");
  });

  const files: [string, string, string][] = [
    [FFMPEG_CORE_URL, "text/javascript; charset=utf-8", "node_modules/@ffmpeg/core/dist/esm/ffmpeg-core.js"],
    [FFMPEG_WASM_URL, "application/wasm", "node_modules/@ffmpeg/core/dist/esm/ffmpeg-core.wasm"],
    [FFMPEG_WORKER_URL, "text/javascript; charset=utf-8", "node_modules/@ffmpeg/ffmpeg/dist/esm/worker.js"],
    [`${FFMPEG_BASE}/const.js`, "text/javascript; charset=utf-8", "node_modules/@ffmpeg/ffmpeg/dist/esm/const.js"],
    [`${FFMPEG_BASE}/errors.js`, "text/javascript; charset=utf-8", "node_modules/@ffmpeg/ffmpeg/dist/esm/errors.js"],
  ];
  for (const [path, type, source] of files)
    test(`GET ${path} serves the file as ${type}`, async () => {
      const { res, body } = await get(path, "identity");
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(type);
      expect(res.headers.get("cache-control")).toContain("immutable");
      const expected = await Bun.file(new URL(`../../${source}`, import.meta.url).pathname).bytes();
      expect(body.length).toBe(expected.length);
      expect(Bun.hash(body)).toBe(Bun.hash(expected));
    });

  test("the wasm is a WebAssembly module and is sent gzipped once compressed", async () => {
    const first = await get(FFMPEG_WASM_URL, "gzip");
    const plain = first.res.headers.get("content-encoding") === "gzip" ? Bun.gunzipSync(first.body) : first.body;
    expect([...plain.slice(0, 4)]).toEqual([0x00, 0x61, 0x73, 0x6d]); // "\0asm"
    let gz: Uint8Array<ArrayBuffer> | null = null;
    for (let i = 0; i < 150 && !gz; i++) {
      const r = await get(FFMPEG_WASM_URL, "gzip, deflate");
      if (r.res.headers.get("content-encoding") === "gzip") gz = r.body;
      else await Bun.sleep(100);
    }
    expect(gz).not.toBeNull();
    expect(gz!.length).toBeLessThan(plain.length / 2);
    const unzipped = Bun.gunzipSync(gz!);
    expect(Bun.hash(unzipped)).toBe(Bun.hash(plain));
  });

  test("unknown vendor files are not served as the engine", async () => {
    const { res } = await get(`${FFMPEG_BASE}/ffmpeg-core.worker.js`, "identity");
    expect(res.headers.get("content-type") ?? "").not.toContain("javascript");
  });
});

describe("vendor: the compiled binary's build-time copies", () => {
  // What scripts/build.ts embeds: gzip and brotli copies and no plain file.
  const dir = mkdtempSync(join(tmpdir(), "threadlink-vendor-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const source = "node_modules/@ffmpeg/core/dist/esm/ffmpeg-core.js";
  const plain = Bun.file(source);
  const built = async () => {
    const body = await plain.bytes();
    writeFileSync(join(dir, "core.js.gz"), Bun.gzipSync(body, { level: 9 }));
    writeFileSync(join(dir, "core.js.br"), brotliCompressSync(body));
    const gzip = join(dir, "core.js.gz");
    return { "ffmpeg-core.js": { file: gzip, gzip, br: join(dir, "core.js.br") } };
  };
  const app = built().then((b) => new Elysia().use(vendorRoutes(b)));
  const get = async (acceptEncoding: string) => {
    const res = await (await app).handle(new Request(`http://localhost:3000${FFMPEG_CORE_URL}`, { headers: { "accept-encoding": acceptEncoding } }));
    return { res, body: new Uint8Array(await res.arrayBuffer()) };
  };

  const cases: [string, string | null, (b: Uint8Array<ArrayBuffer>) => Uint8Array][] = [
    ["gzip, deflate, br, zstd", "br", (b) => brotliDecompressSync(b)],
    ["gzip, deflate", "gzip", (b) => Bun.gunzipSync(b)],
    ["br;q=0, gzip", "gzip", (b) => Bun.gunzipSync(b)],
    ["identity", null, (b) => b],
    ["", null, (b) => b],
  ];
  for (const [ae, encoding, decode] of cases)
    test(`Accept-Encoding "${ae}" gets ${encoding ?? "the plain file"} from the first request`, async () => {
      const { res, body } = await get(ae);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-encoding")).toBe(encoding);
      expect(res.headers.get("vary")).toBe("accept-encoding");
      expect(res.headers.get("cache-control")).toContain("immutable");
      const expected = await plain.bytes();
      if (encoding) expect(body.length).toBeLessThan(expected.length / 2);
      expect(Bun.hash(decode(body))).toBe(Bun.hash(expected));
    });

  test("accepts() honours q=0", () => {
    expect(accepts("gzip, br", "br")).toBe(true);
    expect(accepts("gzip, br;q=0", "br")).toBe(false);
    expect(accepts("gzip;q=0.5", "gzip")).toBe(true);
    expect(accepts("x-gzip", "gzip")).toBe(false);
    expect(accepts(null, "gzip")).toBe(false);
  });
});
