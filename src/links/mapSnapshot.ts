// The redirect map kept on disk between runs, on PostgreSQL (issue 21: start-up with a million
// links ≤ 2 s). A start read every link from the database: 1.3–3.1 s at a million links on two
// cores, the slow ones when PostgreSQL's pages had left memory (docs/performance.md, "Lead,
// session 16"). A graceful stop now writes the map's plain links here with the follower's
// watermark (follow.ts); the next start takes them from the file, reads the smart links, and
// then only what changed since the watermark, from the change log every instance already
// catches up from after a lost connection. Nothing here decides whether a snapshot may be used
// beyond its own file: the identity (which database, which timeline, which build) is the
// caller's, and the follower reads the whole map instead when the watermark is too old or the
// database is behind it (a restore). No SQL here.
//
// The file: the pack's six buffers one after the other, then a JSON trailer (lengths, CRC-32 of
// each buffer, identity, watermark, the links that are not ASCII), then the trailer's length as
// 4 bytes. Written to a temporary name, flushed, then renamed: a stop cut short leaves the last
// whole snapshot or none.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { LinkPack } from "./mapPack";
import type { CachedLink } from "./redirectMap";

/** Bumped whenever the layout or what a pack means changes: an older file is then ignored. */
const FORMAT = 1;

export type Watermark = { xmin: string; at: number };
export type MapSnapshot = { watermark: Watermark; pack: LinkPack; odd: [string, CachedLink][] };

type Trailer = { format: number; identity: string; watermark: Watermark; count: number; lengths: number[]; crcs: number[]; odd: [string, CachedLink][]; writtenAt: string };

const buffersOf = (p: LinkPack) => [p.bytes, p.keyLens, p.hrefLens, p.ids, p.active, p.expires].map((a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength));

/** Writes `snapshot` to `path` for a database known by `identity`; throws on a write error (the caller logs it). */
export function writeMapSnapshot(path: string, identity: string, snapshot: MapSnapshot) {
  const parts = buffersOf(snapshot.pack);
  const trailer: Trailer = {
    format: FORMAT,
    identity,
    watermark: snapshot.watermark,
    count: snapshot.pack.count,
    lengths: parts.map((b) => b.byteLength),
    crcs: parts.map((b) => Bun.hash.crc32(b)),
    odd: snapshot.odd,
    writtenAt: new Date().toISOString(),
  };
  const text = Buffer.from(JSON.stringify(trailer));
  const size = Buffer.alloc(4);
  size.writeUInt32LE(text.byteLength);
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, "w", 0o600);
  try {
    for (const b of [...parts, text, size]) for (let at = 0; at < b.byteLength; ) at += writeSync(fd, b, at);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw e;
  }
  closeSync(fd);
  renameSync(temporary, path);
}

/**
 * The snapshot at `path` if it is whole and of this format and `identity`; null otherwise (no
 * file, another database or build, a damaged file), with the reason for the log.
 */
export function readMapSnapshot(path: string, identity: string): { snapshot: MapSnapshot } | { snapshot: null; why: string } {
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch {
    return { snapshot: null, why: "no snapshot" };
  }
  try {
    const size = file.readUInt32LE(file.byteLength - 4);
    const trailer = JSON.parse(file.subarray(file.byteLength - 4 - size, file.byteLength - 4).toString()) as Trailer;
    if (trailer.format !== FORMAT) return { snapshot: null, why: "another format" };
    if (trailer.identity !== identity) return { snapshot: null, why: "another database or build" };
    if (trailer.lengths.reduce((a, b) => a + b, 0) + size + 4 !== file.byteLength) return { snapshot: null, why: "damaged (length)" };
    // Copied out (slice): typed arrays need their own aligned buffers, and the pack is handed on.
    const parts: ArrayBuffer[] = [];
    let at = 0;
    for (const [i, n] of trailer.lengths.entries()) {
      const part = file.subarray(at, at + n);
      if (Bun.hash.crc32(part) !== trailer.crcs[i]) return { snapshot: null, why: "damaged (checksum)" };
      parts.push(part.buffer.slice(part.byteOffset, part.byteOffset + n) as ArrayBuffer);
      at += n;
    }
    const [bytes, keyLens, hrefLens, ids, active, expires] = parts as [ArrayBuffer, ArrayBuffer, ArrayBuffer, ArrayBuffer, ArrayBuffer, ArrayBuffer];
    const pack: LinkPack = {
      count: trailer.count,
      bytes: new Uint8Array(bytes),
      keyLens: new Uint8Array(keyLens),
      hrefLens: new Uint32Array(hrefLens),
      ids: new Float64Array(ids),
      active: new Uint8Array(active),
      expires: new Float64Array(expires),
      rows: [],
    };
    if (pack.keyLens.length !== pack.count || pack.ids.length !== pack.count) return { snapshot: null, why: "damaged (count)" };
    return { snapshot: { watermark: trailer.watermark, pack, odd: trailer.odd } };
  } catch {
    return { snapshot: null, why: "damaged" };
  }
}
