import { describe, expect, test } from "bun:test";
import { brotliCompressSync, brotliDecompressSync } from "node:zlib";
import { setup } from "../test/helpers";
import { send } from "./spa";

const body = new TextEncoder().encode("console.log('hello');".repeat(50));
const entry = { body, gz: Bun.gzipSync(body), br: new Uint8Array(brotliCompressSync(body)), headers: { "content-type": "text/javascript" } };
const get = (ae: string | null) => send(entry, new Request("http://localhost/x.js", { headers: ae === null ? {} : { "accept-encoding": ae } }));

describe("the web app's files", () => {
  const cases: [string | null, string | null][] = [
    ["gzip, deflate, br, zstd", "br"],
    ["gzip, deflate", "gzip"],
    ["br;q=0, gzip", "gzip"],
    ["identity", null],
    [null, null],
  ];
  for (const [ae, coding] of cases)
    test(`Accept-Encoding ${JSON.stringify(ae)} gets ${coding ?? "the plain bytes"}`, async () => {
      const res = get(ae);
      expect(res.headers.get("content-encoding")).toBe(coding);
      expect(res.headers.get("vary")).toBe("accept-encoding");
      const bytes = new Uint8Array(await res.arrayBuffer());
      const plain = coding === "br" ? brotliDecompressSync(bytes) : coding === "gzip" ? Bun.gunzipSync(bytes) : bytes;
      expect(new TextDecoder().decode(plain)).toBe(new TextDecoder().decode(body));
    });

  test("from source: one hashed, minified, immutable entry script and stylesheet, gzipped", async () => {
    const t = await setup();
    const html = (await t.call("GET", "/auth")).text;
    const files = [...html.matchAll(/(?:src|href)="(\/chunk-[a-z0-9]+\.(?:js|css))"/g)].map((m) => m[1]!);
    expect(files.filter((f) => f.endsWith(".js"))).toHaveLength(1);
    expect(files.filter((f) => f.endsWith(".css"))).toHaveLength(1);
    for (const f of files) {
      const r = await t.call("GET", f, { headers: { "accept-encoding": "gzip" } });
      expect(r.status).toBe(200);
      expect(r.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(r.headers.get("content-encoding")).toBe("gzip");
    }
    // Fully minified: React's production build, and no readable names of our own code.
    const js = (await t.call("GET", files.find((f) => f.endsWith(".js"))!)).text;
    expect(js).toContain("Minified React error");
    expect(js).not.toContain("function AppRoutes");
    // The QR page is a chunk of its own, fetched when its route renders.
    expect(js).toMatch(/import\("\/chunk-[a-z0-9]+\.js"\)/);
  });
});
