// A streamed body gzipped as it is read (issue 21), here or by the thread that makes it: the
// downloads of the reader thread (src/db/reader.ts) are gzipped there, so the request thread
// receives the compressed bytes only. Every chunk handed across is an ArrayBuffer that the
// request thread frees only when its collector runs, and it runs seldom (its own heap grows
// little): four exports of a million links left +115 MB of spent chunks on it at once (an
// export.json is 83 MB, a sixth of that gzipped; docs/performance.md, "Exports' memory").
import { constants, crc32, deflateRawSync } from "node:zlib";

type Stream = ReadableStream<Uint8Array>;
const atSource = new WeakMap<Stream, () => Stream>();

/** Marks `stream` as one its producer can gzip itself: `gzipped()` then asks it for that stream instead. */
export function gzippedAtSource(stream: Stream, gzip: () => Stream): Stream {
  atSource.set(stream, gzip);
  return stream;
}

/** `stream` gzipped: by its producer when it can (gzippedAtSource; `stream` is then never read), else here. */
export function gzipped(stream: Stream): Stream {
  return atSource.get(stream)?.() ?? gzipStream(stream);
}

/** Bytes of a streamed body deflated in one synchronous call: ~1 ms of the request thread. */
const GZIP_PIECE = 64 * 1024;
const GZIP_HEADER = Uint8Array.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
/** An empty final deflate block (fixed Huffman, BFINAL set): the end of the stream. */
const DEFLATE_END = Uint8Array.from([3, 0]);

/**
 * A streamed body gzipped as it is read, one piece per pull: a piece is deflated on its own and
 * ended with a sync flush, so the pieces join into one deflate stream (RFC 1951), framed by the
 * gzip header and a trailer of the CRC-32 and length of everything (RFC 1952). It is pulled by
 * the socket, so it reads its source no faster than the client takes the answer; the web's
 * CompressionStream, piped, grew the process by ~340 MB while four 250,000-link exports streamed
 * to gzip clients (docs/performance.md, issue 21). Each piece starts with an empty history,
 * which costs a little ratio on 64 KB of text.
 */
export function gzipStream(source: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let pending: Uint8Array | null = null;
  let at = 0;
  let crc = 0;
  let size = 0;
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        // Copies: a chunk may be handed to another thread, which takes its buffer along.
        controller.enqueue(GZIP_HEADER.slice());
        return;
      }
      while (!pending || at >= pending.byteLength) {
        const next = await reader.read();
        if (next.done) {
          const trailer = new Uint8Array(8);
          const view = new DataView(trailer.buffer);
          view.setUint32(0, crc >>> 0, true);
          view.setUint32(4, size >>> 0, true);
          controller.enqueue(DEFLATE_END.slice());
          controller.enqueue(trailer);
          controller.close();
          return;
        }
        pending = next.value;
        at = 0;
      }
      const piece = pending.subarray(at, at + GZIP_PIECE);
      at += piece.byteLength;
      crc = crc32(piece, crc);
      size += piece.byteLength;
      controller.enqueue(deflateRawSync(piece, { level: 4, finishFlush: constants.Z_SYNC_FLUSH }));
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
