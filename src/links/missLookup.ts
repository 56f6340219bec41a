// Several instances on one PostgreSQL: a code this instance's map does not know may have been
// created by another instance a moment ago, its notification not yet here (the listener
// catching up, or paused: follow.ts). Such a miss asks the database once before answering 404
// (issue 22, read-your-writes). Unknown codes are also what a scanner floods with, so the
// database sees a bounded rate of these lookups whatever arrives: a token bucket
// (MISS_LOOKUPS_PER_S, MISS_LOOKUP_BURST), at most MISS_LOOKUPS_IN_FLIGHT at once, and one
// lookup for many requests asking the same code together. A miss over the limit answers from
// the map (404), as a single instance always does.
//
// Codes the database did not have are remembered for NEGATIVE_MS, which is no longer than the
// longest a write waits for every instance's confirmation (follow.ts ACK_WAIT_MS): a link
// created after this instance was told "no such code" is either applied here by the follower
// before its write is answered (which forgets the code here), or answered only after that wait,
// by when the remembered "no" has expired. So a remembered miss never hides an acknowledged create.
import { ACK_WAIT_MS } from "./follow";

/** Lookups a second in the long run (the bucket's refill). */
export const MISS_LOOKUPS_PER_S = 20;
/** Lookups allowed at once after a quiet spell (the bucket's size). */
export const MISS_LOOKUP_BURST = 20;
/** Lookups running at the same time, at most. */
export const MISS_LOOKUPS_IN_FLIGHT = 4;
/** How long a code the database did not have is answered 404 without asking again. */
export const NEGATIVE_MS = ACK_WAIT_MS;
/** Remembered misses, at most; cleared whole when full (a flood of new codes each time). */
const NEGATIVE_MAX = 10_000;

export function missLookup<T>(find: (code: string) => Promise<T | null>) {
  const negative = new Map<string, number>();
  const running = new Map<string, Promise<T | null>>();
  let tokens = MISS_LOOKUP_BURST;
  let filledAt = performance.now();

  const take = () => {
    const now = performance.now();
    tokens = Math.min(MISS_LOOKUP_BURST, tokens + ((now - filledAt) / 1000) * MISS_LOOKUPS_PER_S);
    filledAt = now;
    if (tokens < 1 || running.size >= MISS_LOOKUPS_IN_FLIGHT) return false;
    tokens--;
    return true;
  };

  return {
    /** The link under `code` in the database, or null (not there, remembered, over the limit, or the database away). */
    lookup(code: string): Promise<T | null> {
      const same = running.get(code);
      if (same) return same;
      const until = negative.get(code);
      if (until !== undefined) {
        if (until > performance.now()) return Promise.resolve(null);
        negative.delete(code);
      }
      if (!take()) return Promise.resolve(null);
      // Taken before the query: the database's "no" holds from a moment no later than this.
      const asked = performance.now();
      const p = find(code)
        .then((row) => {
          if (row === null) {
            if (negative.size >= NEGATIVE_MAX) negative.clear();
            negative.set(code, asked + NEGATIVE_MS);
          }
          return row;
        })
        // The database away: the map's answer (nothing can be created meanwhile).
        .catch(() => null)
        .finally(() => running.delete(code));
      running.set(code, p);
      return p;
    },
    /** The code now names a link here (the follower or this instance's own write put it in the map). */
    forget(code: string) {
      negative.delete(code);
    },
  };
}
