// The redirect map's load in two halves at once (issue 21: start-up with a million links ≤ 2 s).
// Read on one thread, the million rows cost ~0.7 s to read and ~0.6 s to put in the map. Here
// the reader thread (src/downloads/worker.ts) reads the upper ids meanwhile and packs them as the
// map keeps them — each key's and destination's ASCII bytes, one after the other, and the
// fields by position — so its half crosses as a few transferred buffers (no row objects to
// copy), and the map takes a pack with one copy of its bytes and a hash per link
// (RedirectMap.addPacked). What a pack cannot hold (a key or destination that is not ASCII, a
// destination the URL parser refuses) goes as its row, for the request thread to read as it
// reads its own half. Smart links are not in these pages: the request thread reads them last
// (store.ts smartForRedirect).
import { arena, hrefOf } from "./redirectMap";
import type { PlainRedirectRow } from "./store";
import type { Tracker } from "./schema";

/** Before a brand link's code in the redirect map's key: a space, which no code contains. */
export const BRAND_KEY = " ";
/** The map's key for a code in a tracker: `promo` can be in each. */
export const keyOf = (tracker: Tracker, code: string) => (tracker === "brand" ? `${BRAND_KEY}${code}` : code);

/**
 * The part of the ids the request thread reads itself; it also adds the reader thread's packs
 * (~0.2 µs a link). Measured at a million links on two shared cores: at half each, the request
 * thread's half took 0.8–1.2 s and the packs came 0.2–0.3 s after it (the reader thread runs at
 * a lower priority). A larger share here may balance them better; not tuned further.
 */
export const OWN_SHARE = 0.5;

export type LinkPack = {
  count: number;
  /** Per link, its key's bytes then its destination's. */
  bytes: Uint8Array<ArrayBuffer>;
  keyLens: Uint8Array<ArrayBuffer>;
  hrefLens: Uint32Array<ArrayBuffer>;
  ids: Float64Array<ArrayBuffer>;
  active: Uint8Array<ArrayBuffer>;
  /** NaN: never expires. */
  expires: Float64Array<ArrayBuffer>;
  /** Links read as rows (toCached on the request thread): not ASCII, or refused. */
  rows: PlainRedirectRow[];
};

/** The buffers a pack moves with (transferred: the sender's copies are gone). */
export const packBuffers = (p: LinkPack) => [p.bytes.buffer, p.keyLens.buffer, p.hrefLens.buffer, p.ids.buffer, p.active.buffer, p.expires.buffer];

/** One page of rows as a pack. */
export function packRows(rows: PlainRedirectRow[]): LinkPack {
  const n = rows.length;
  const keyLens = new Uint8Array(n);
  const hrefLens = new Uint32Array(n);
  const ids = new Float64Array(n);
  const active = new Uint8Array(n);
  const expires = new Float64Array(n);
  const others: PlainRedirectRow[] = [];
  let bytes = arena(n * 96);
  let used = 0;
  let count = 0;
  for (const r of rows) {
    let href: string;
    try {
      href = hrefOf(r.original_url);
    } catch {
      others.push(r);
      continue;
    }
    const key = keyOf(r.tracker, r.short_code);
    if (used + 3 * (key.length + href.length) > bytes.length) {
      const bigger = arena(Math.max(bytes.length * 2, used + 3 * (key.length + href.length)));
      bytes.copy(bigger, 0, 0, used);
      bytes = bigger;
    }
    // A byte count other than the length means not ASCII: that link goes as its row.
    const k = key.length > 255 ? -1 : bytes.utf8Write(key, used);
    const h = k === key.length ? bytes.utf8Write(href, used + k) : -1;
    if (k !== key.length || h !== href.length) {
      others.push(r);
      continue;
    }
    used += k + h;
    keyLens[count] = k;
    hrefLens[count] = h;
    ids[count] = r.id;
    active[count] = r.active === 1 ? 1 : 0;
    expires[count] = r.expires_at ? Date.parse(r.expires_at) : Number.NaN;
    count++;
  }
  // Its own buffer of its size: a pooled Buffer's ArrayBuffer is shared and cannot move.
  const own = new Uint8Array(used);
  own.set(bytes.subarray(0, used));
  return { count, bytes: own, keyLens, hrefLens, ids, active, expires, rows: others };
}
