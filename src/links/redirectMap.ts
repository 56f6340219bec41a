// The code → link map the redirects read, packed (issue 21: ≤ 200 bytes per link at a million
// links). A Map of one object per link cost ~280 bytes of heap per link, and it was not the
// objects: a JS string for the code (with its Map entry) and one for the destination were
// ~200 of them. Here codes and destinations are ASCII bytes in one arena, the other fields sit in
// typed arrays by slot, and an open-addressing table of slots finds a code. The few codes or
// destinations that are not ASCII (a code from a hand-edited database; WHATWG URL serialisation
// makes every parsed destination ASCII) live in an ordinary Map beside it. A smart link is packed
// like a plain one, its compiled settings in a side table by slot (H-smartcost: a whole object
// per smart link in that Map was part of what made a link with rules cost the request thread
// ~19 µs more than a plain one, in collection). A small cache keeps
// the objects of recently asked codes, so a hot link is not decoded per redirect.
//
// Synchronous throughout: the redirect never awaits (issue 12).
import type { CompiledSmart } from "../smart/decide";
import type { LinkPack } from "./mapPack";

/**
 * A destination that is already in the form the URL parser writes (lower-case http(s) scheme
 * and host name, no port, user, IP address or punycode, a path of plain characters, no dot
 * segments, no fragment): its own href. Parsing a million destinations was ~0.3 s of the start-up
 * (issue 21: ≤ 2 s at a million links); the test beside this file checks this against the parser.
 */
const PLAIN_HREF = /^https?:\/\/(?!xn--)[a-z0-9-]+(?:\.(?!xn--)[a-z0-9-]+)*\.(?!xn--)[a-z][a-z0-9-]*\/[A-Za-z0-9\-._~!$&()*+,;=:@/?%]*$/;
const DOT_SEGMENT = /\/\.|%2e/i;

/** The destination as the redirect sends it: the URL parser's href (see PLAIN_HREF). */
export function hrefOf(url: string) {
  return PLAIN_HREF.test(url) && !DOT_SEGMENT.test(url) ? url : new URL(url).href;
}

/** What a redirect needs of a link. */
export type CachedLink = {
  id: number;
  /** The stored destination, parsed and re-serialised: ASCII-only, safe for a Location header. */
  href: string;
  active: boolean;
  expiresMs: number | null;
  /**
   * A smart link's compiled settings (password, limit, rules, split: src/smart); undefined for
   * a plain link, whose redirect checks this once and does nothing more (issue 24).
   */
  smart?: CompiledSmart;
};

/**
 * Node's (and Bun's) Buffer methods without the encoding switch of toString/write, 4× faster on
 * a 65-byte destination here; present since Node's first releases, absent from the type files.
 */
export type Arena = Buffer & { latin1Slice(start: number, end: number): string; utf8Write(s: string, offset: number): number };
export const arena = (n: number) => Buffer.allocUnsafe(n) as Arena;

const EMPTY = -1;
const GONE = -2;
/** Codes asked recently, kept decoded; cleared whole when full (cheaper than an LRU's upkeep). */
const CACHE_MAX = 4096;

/** FNV-1a over the code's characters, as a non-negative 31-bit integer. */
function hash(s: string) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 1;
}

export class RedirectMap {
  // By slot.
  private ids = new Float64Array(0);
  private expires = new Float64Array(0); // NaN: never expires
  private active = new Uint8Array(0);
  private offsets = new Uint32Array(0); // into the arena: the code, then the destination
  private codeLens = new Uint8Array(0);
  private hrefLens = new Uint32Array(0);
  /**
   * A smart link's compiled settings by slot (undefined for a plain link). Empty until the first
   * smart link, then as long as the other arrays (dense: an array with holes is slower to read).
   */
  private smart: (CompiledSmart | undefined)[] = [];
  private slots = 0; // slots used (live or freed)
  private free: number[] = [];
  // Bytes.
  private arena = arena(0);
  private arenaUsed = 0;
  private arenaDead = 0;
  // Open addressing with linear probing: each entry a slot, EMPTY or GONE (a deleted entry).
  private table = new Int32Array(16).fill(EMPTY);
  private live = 0;
  private gone = 0;
  private odd = new Map<string, CachedLink>();
  private cache = new Map<string, CachedLink>();

  get size() {
    return this.live + this.odd.size;
  }

  get(code: string): CachedLink | undefined {
    const hit = this.cache.get(code);
    if (hit) return hit;
    const slot = this.find(code);
    if (slot < 0) return this.odd.get(code);
    const at = this.offsets[slot]! + this.codeLens[slot]!;
    const e = this.expires[slot]!;
    const link: CachedLink = {
      id: this.ids[slot]!,
      href: this.arena.latin1Slice(at, at + this.hrefLens[slot]!),
      active: this.active[slot] === 1,
      expiresMs: Number.isNaN(e) ? null : e,
    };
    if (slot < this.smart.length) {
      const smart = this.smart[slot];
      if (smart !== undefined) link.smart = smart;
    }
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(code, link);
    return link;
  }

  set(code: string, link: CachedLink) {
    this.delete(code);
    this.add(code, link);
  }

  /** Adds a code known not to be in the map (a whole load from the database, codes unique there). */
  add(code: string, link: CachedLink) {
    // Written as UTF-8 (native, fast); a byte count other than the length means not ASCII.
    const room = 3 * (code.length + link.href.length);
    this.reserve(room);
    const at = this.arenaUsed;
    const codeBytes = code.length > 255 ? -1 : this.arena.utf8Write(code, at);
    const hrefBytes = codeBytes === code.length ? this.arena.utf8Write(link.href, at + codeBytes) : -1;
    if (codeBytes !== code.length || hrefBytes !== link.href.length) {
      this.odd.set(code, link);
      return;
    }
    const slot = this.free.pop() ?? this.newSlot();
    this.arenaUsed += codeBytes + hrefBytes;
    this.offsets[slot] = at;
    this.codeLens[slot] = code.length;
    this.hrefLens[slot] = link.href.length;
    this.ids[slot] = link.id;
    this.active[slot] = link.active ? 1 : 0;
    this.expires[slot] = link.expiresMs ?? Number.NaN;
    if (link.smart !== undefined) {
      while (this.smart.length < this.ids.length) this.smart.push(undefined);
      this.smart[slot] = link.smart;
    } else if (slot < this.smart.length) this.smart[slot] = undefined;
    if ((this.live + this.gone + 1) * 4 > this.table.length * 3) this.rehash(this.live + 1);
    const mask = this.table.length - 1;
    let i = hash(code) & mask;
    while (this.table[i]! >= 0) i = (i + 1) & mask;
    if (this.table[i] === GONE) this.gone--;
    this.table[i] = slot;
    this.live++;
  }

  /**
   * Adds a pack's links (src/links/mapPack.ts: a whole load's other half, keys known not to be in
   * the map): its bytes copied once, a slot and a table entry per link, no string made.
   */
  addPacked(p: LinkPack) {
    const n = p.count;
    this.reserveFor(n, p.bytes.byteLength);
    const base = this.arenaUsed;
    this.arena.set(p.bytes, base);
    this.arenaUsed += p.bytes.byteLength;
    // New slots in a row (a load has freed none): each field copied whole. Locals, not fields,
    // in the loop: it runs a million times at start-up (~0.45 s when written per link with
    // fields read through `this`, ~0.1 s so).
    const first = this.slots;
    if (this.free.length > 0 || first + n > this.ids.length) throw new Error("addPacked: a whole load's map only");
    this.slots += n;
    this.codeLens.set(p.keyLens.subarray(0, n), first);
    this.hrefLens.set(p.hrefLens.subarray(0, n), first);
    this.ids.set(p.ids.subarray(0, n), first);
    this.active.set(p.active.subarray(0, n), first);
    this.expires.set(p.expires.subarray(0, n), first);
    for (let i = 0; i < n && first + i < this.smart.length; i++) this.smart[first + i] = undefined;
    const { table, offsets } = this;
    const bytes = p.bytes;
    const keyLens = p.keyLens;
    const hrefLens = p.hrefLens;
    const mask = table.length - 1;
    let gone = 0;
    for (let i = 0, at = 0; i < n; i++) {
      const keyLen = keyLens[i]!;
      offsets[first + i] = base + at;
      let h = 0x811c9dc5;
      for (let k = at; k < at + keyLen; k++) h = Math.imul(h ^ bytes[k]!, 0x01000193);
      let e = (h >>> 1) & mask;
      while (table[e]! >= 0) e = (e + 1) & mask;
      if (table[e] === GONE) gone++;
      table[e] = first + i;
      at += keyLen + hrefLens[i]!;
    }
    this.gone -= gone;
    this.live += n;
  }

  /**
   * Every plain link as one pack (the map's snapshot on disk, mapSnapshot.ts), and the links kept
   * apart because they are not ASCII (`odd`). Smart links are left out: their settings are read
   * from the database at every start.
   */
  plainPack(): { pack: LinkPack; odd: [string, CachedLink][] } {
    let count = 0;
    let bytes = 0;
    for (const slot of this.table) {
      if (slot < 0 || this.smart[slot] !== undefined) continue;
      count++;
      bytes += this.codeLens[slot]! + this.hrefLens[slot]!;
    }
    const pack: LinkPack = {
      count,
      bytes: new Uint8Array(bytes),
      keyLens: new Uint8Array(count),
      hrefLens: new Uint32Array(count),
      ids: new Float64Array(count),
      active: new Uint8Array(count),
      expires: new Float64Array(count),
      rows: [],
    };
    let i = 0;
    let at = 0;
    for (const slot of this.table) {
      if (slot < 0 || this.smart[slot] !== undefined) continue;
      const n = this.codeLens[slot]! + this.hrefLens[slot]!;
      pack.bytes.set(this.arena.subarray(this.offsets[slot]!, this.offsets[slot]! + n), at);
      at += n;
      pack.keyLens[i] = this.codeLens[slot]!;
      pack.hrefLens[i] = this.hrefLens[slot]!;
      pack.ids[i] = this.ids[slot]!;
      pack.active[i] = this.active[slot]!;
      pack.expires[i] = this.expires[slot]!;
      i++;
    }
    const odd = [...this.odd].filter(([, link]) => link.smart === undefined).map(([code, link]) => [code, { ...link }] as [string, CachedLink]);
    return { pack, odd };
  }

  delete(code: string): boolean {
    this.cache.delete(code);
    if (this.odd.delete(code)) return true;
    const i = this.findIndex(code);
    if (i < 0) return false;
    const slot = this.table[i]!;
    this.table[i] = GONE;
    this.gone++;
    this.live--;
    this.arenaDead += this.codeLens[slot]! + this.hrefLens[slot]!;
    if (slot < this.smart.length) this.smart[slot] = undefined;
    this.free.push(slot);
    if (this.arenaDead > 1 << 20 && this.arenaDead * 2 > this.arenaUsed) this.compact();
    return true;
  }

  /**
   * Room for `links` more links with `bytes` of codes and destinations, made at once before a
   * whole load: growing by steps copied the arrays and rebuilt the table ~20 times on the way to
   * a million links (1.56 s → 0.92 s for a million adds).
   */
  reserveFor(links: number, bytes: number) {
    if (this.slots + links > this.ids.length) this.resizeSlots(this.slots + links);
    if ((this.live + this.gone + links) * 4 > this.table.length * 3) this.rehash(this.live + links);
    this.reserve(bytes);
  }

  /**
   * Gives back what growing over-allocated (after a whole load). The arena's unused tail is kept:
   * never written, its pages were never resident, so it costs address space, not memory, and
   * copying the used part to a buffer of its size wrote 85 MB again at a million links.
   */
  trim() {
    if (this.slots < this.ids.length) this.resizeSlots(this.slots);
    if (this.arenaDead > 0) this.compact();
  }

  private find(code: string) {
    const i = this.findIndex(code);
    return i < 0 ? -1 : this.table[i]!;
  }

  private findIndex(code: string) {
    if (code.length > 255) return -1;
    const mask = this.table.length - 1;
    for (let i = hash(code) & mask; ; i = (i + 1) & mask) {
      const slot = this.table[i]!;
      if (slot === EMPTY) return -1;
      if (slot !== GONE && this.codeLens[slot] === code.length) {
        const at = this.offsets[slot]!;
        let same = true;
        for (let k = 0; k < code.length; k++) {
          if (this.arena[at + k] !== code.charCodeAt(k)) {
            same = false;
            break;
          }
        }
        if (same) return i;
      }
    }
  }

  private newSlot() {
    if (this.slots === this.ids.length) this.resizeSlots(Math.max(1024, Math.ceil(this.ids.length * 1.5)));
    return this.slots++;
  }

  private resizeSlots(n: number) {
    const grow = <T extends Float64Array | Uint8Array | Uint32Array>(a: T, make: (n: number) => T) => {
      const b = make(n);
      b.set(a.subarray(0, Math.min(a.length, n)));
      return b;
    };
    this.ids = grow(this.ids, (k) => new Float64Array(k));
    this.expires = grow(this.expires, (k) => new Float64Array(k));
    this.active = grow(this.active, (k) => new Uint8Array(k));
    this.offsets = grow(this.offsets, (k) => new Uint32Array(k));
    this.codeLens = grow(this.codeLens, (k) => new Uint8Array(k));
    this.hrefLens = grow(this.hrefLens, (k) => new Uint32Array(k));
    if (this.smart.length > n) this.smart.length = n;
    else if (this.smart.length > 0) while (this.smart.length < n) this.smart.push(undefined);
  }

  private reserve(bytes: number) {
    if (this.arenaUsed + bytes <= this.arena.length) return;
    const next = arena(Math.max(64 * 1024, Math.ceil((this.arenaUsed + bytes) * 1.5)));
    this.arena.copy(next, 0, 0, this.arenaUsed);
    this.arena = next;
  }

  private rehash(atLeast: number) {
    // Half full after a rehash, three quarters before the next.
    let n = 16;
    while (n < atLeast * 2) n *= 2;
    const old = this.table;
    this.table = new Int32Array(n).fill(EMPTY);
    this.gone = 0;
    const mask = n - 1;
    for (const slot of old) {
      if (slot < 0) continue;
      const at = this.offsets[slot]!;
      let h = 0x811c9dc5;
      for (let k = 0; k < this.codeLens[slot]!; k++) h = Math.imul(h ^ this.arena[at + k]!, 0x01000193);
      let i = (h >>> 1) & mask;
      while (this.table[i] !== EMPTY) i = (i + 1) & mask;
      this.table[i] = slot;
    }
  }

  /** Copies the live slots' bytes into an arena of their size (the freed ones' bytes dropped). */
  private compact() {
    const next = arena(Math.max(1, this.arenaUsed - this.arenaDead));
    let used = 0;
    for (const slot of this.table) {
      if (slot < 0) continue;
      const n = this.codeLens[slot]! + this.hrefLens[slot]!;
      this.arena.copy(next, used, this.offsets[slot]!, this.offsets[slot]! + n);
      this.offsets[slot] = used;
      used += n;
    }
    this.arena = next;
    this.arenaUsed = used;
    this.arenaDead = 0;
  }
}
