// A download streamed from batches of rows (issue 21): the rows are read a batch ahead on the
// reader thread (src/db/reader.ts) while this thread formats the current batch a slice at a
// time, with a macrotask before each slice. A fast client's pulls would otherwise run as one
// chain of microtasks and hold every redirect for hundreds of milliseconds (tenant-scale.ts:
// p99 642 ms beside one client looping on a links export); a slice holds a redirect ~1 ms.

export type SlicedStream<T> = {
  /** The batches to stream, in order; returned (closed) when the client goes away. */
  batches: AsyncGenerator<T[]>;
  /** Rows formatted per turn of the event loop. */
  slice: number;
  /** The text of a slice of rows; `first` is true for the download's first slice. */
  format(rows: T[], first: boolean): string;
  head?: string;
  tail?: string;
  /** Runs once, however the stream ends (finished, failed, or the client gone). */
  done?: () => void;
};

export function slicedStream<T>(s: SlicedStream<T>): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let batch: T[] = [];
  let at = 0;
  let first = true;
  let headSent = s.head === undefined;
  let ahead: Promise<IteratorResult<T[]>> | null = null;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    s.done?.();
  };
  return new ReadableStream({
    async pull(controller) {
      try {
        if (!headSent) {
          headSent = true;
          controller.enqueue(enc.encode(s.head));
          return;
        }
        await new Promise((r) => setImmediate(r));
        if (at >= batch.length) {
          const next = await (ahead ?? s.batches.next());
          if (next.done) {
            if (s.tail) controller.enqueue(enc.encode(s.tail));
            controller.close();
            end();
            return;
          }
          // The next batch is read while this one is formatted.
          ahead = s.batches.next();
          // Awaited on the next pull; a client gone meanwhile must not leave its failure unhandled.
          ahead.catch(() => {});
          batch = next.value;
          at = 0;
        }
        const rows = batch.slice(at, at + s.slice);
        at += s.slice;
        // A new array per slice: a chunk may still sit in the gzip pipe (gzipStream.ts) when the
        // next is pulled (one buffer re-filled per batch corrupted compressed exports).
        controller.enqueue(enc.encode(s.format(rows, first)));
        first = false;
      } catch (e) {
        end();
        controller.error(e);
      }
    },
    async cancel() {
      end();
      await s.batches.return(undefined);
    },
  });
}
