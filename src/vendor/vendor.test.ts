import { describe, expect, test } from "bun:test";
import corePkg from "../../node_modules/@ffmpeg/core/package.json";
import { setup } from "../test/helpers";
import { FFMPEG_BASE, FFMPEG_CORE_URL, FFMPEG_CORE_VERSION, FFMPEG_WASM_URL, FFMPEG_WORKER_URL } from "./paths";

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
