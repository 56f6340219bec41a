// The streamed gzip of downloads (src/shared/gzipStream.ts): pieces deflated one by one must
// join into one valid gzip stream whatever the chunking, and be read no faster than pulled.
import { expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { gzipStream } from "../shared/gzipStream";

const enc = new TextEncoder();
const source = (chunks: Uint8Array[]) =>
  new ReadableStream<Uint8Array>({
    pull(c) {
      const next = chunks.shift();
      if (next) c.enqueue(next);
      else c.close();
    },
  });

test("any chunking (empty, tiny, over a piece, multi-byte text across a cut) gunzips to the same bytes", async () => {
  const text = ["", "a", "ünïcode ✓ 😀 ".repeat(9000), "", `{"x":"${"y".repeat(200_000)}"}`, "tail"];
  const out = new Uint8Array(await new Response(gzipStream(source(text.map((t) => enc.encode(t))))).arrayBuffer());
  expect(gunzipSync(out).toString()).toBe(text.join(""));
  // Smaller than the input: the pieces are compressed, not stored.
  expect(out.byteLength).toBeLessThan(text.join("").length / 10);
});

test("an empty body is a valid, empty gzip stream", async () => {
  const out = new Uint8Array(await new Response(gzipStream(source([]))).arrayBuffer());
  expect(gunzipSync(out).byteLength).toBe(0);
});

test("the source is read only as the output is pulled (no read-ahead of a download)", async () => {
  let reads = 0;
  const big = new ReadableStream<Uint8Array>({
    pull(c) {
      reads++;
      c.enqueue(new Uint8Array(256 * 1024).fill(97));
    },
  });
  const reader = gzipStream(big).getReader();
  for (let i = 0; i < 41; i++) await reader.read();
  await Bun.sleep(20);
  // The header and 40 pieces of 64 KB: ten 256 KB chunks taken, and at most the two queues'
  // one chunk each read ahead, however long the stream waits.
  expect(reads).toBeGreaterThanOrEqual(10);
  expect(reads).toBeLessThanOrEqual(12);
  await reader.cancel();
});
