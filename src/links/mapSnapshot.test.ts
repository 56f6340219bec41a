// The redirect map's snapshot on disk (mapSnapshot.ts): a map written and read back answers
// every code as the original did, smart links left out; a snapshot of another database or
// build, of another format, cut short or with a changed byte is not used.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CachedLink, RedirectMap } from "./redirectMap";
import { readMapSnapshot, writeMapSnapshot } from "./mapSnapshot";
import type { CompiledSmart } from "../smart/decide";

const dir = mkdtempSync(join(tmpdir(), "threadlink-snapshot-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const watermark = { xmin: "123456789012", at: 1_764_000_000_000 };

/** A map of plain links (one expiring, one inactive, one deleted), a non-ASCII code and a smart link. */
function sample() {
  const map = new RedirectMap();
  const links = new Map<string, CachedLink>();
  for (let i = 1; i <= 2_000; i++) {
    const link: CachedLink = { id: i, href: `https://example.com/p/${i}?x=${"y".repeat(i % 50)}`, active: i % 13 !== 0, expiresMs: i % 7 === 0 ? 1_800_000_000_000 + i : null };
    const code = i % 2 ? `c${i}` : ` b${i}`; // a brand link's key starts with a space (mapPack.ts)
    map.add(code, link);
    links.set(code, link);
  }
  map.delete("c99");
  links.delete("c99");
  const odd: CachedLink = { id: 5_000, href: "https://example.com/ü", active: true, expiresMs: null };
  map.add("käse", odd);
  links.set("käse", odd);
  map.add("locked", { id: 6_000, href: "https://example.com/locked", active: true, expiresMs: null, smart: { password: true } as unknown as CompiledSmart });
  return { map, links };
}

test("a map written and read back answers every plain link as before; smart links are left out", () => {
  const { map, links } = sample();
  const path = join(dir, "round.snapshot");
  writeMapSnapshot(path, "db/1/42", { watermark, ...map.plainPack() });
  const read = readMapSnapshot(path, "db/1/42");
  expect(read.snapshot).not.toBeNull();
  const { pack, odd, watermark: mark } = read.snapshot!;
  expect(mark).toEqual(watermark);
  const again = new RedirectMap();
  again.reserveFor(pack.count + odd.length, pack.bytes.byteLength);
  again.addPacked(pack);
  for (const [code, link] of odd) again.add(code, link);
  expect(again.size).toBe(links.size);
  for (const [code, link] of links) expect(again.get(code)).toEqual(link);
  expect(again.get("c99")).toBeUndefined();
  expect(again.get("locked")).toBeUndefined();
});

test("a snapshot of another database or build, another format, cut short or with a byte changed is not used", () => {
  const { map } = sample();
  const path = join(dir, "bad.snapshot");
  writeMapSnapshot(path, "db/1/42", { watermark, ...map.plainPack() });
  const whole = readFileSync(path);
  expect(readMapSnapshot(path, "db/2/42")).toEqual({ snapshot: null, why: "another database or build" });
  expect(readMapSnapshot(join(dir, "none.snapshot"), "db/1/42")).toEqual({ snapshot: null, why: "no snapshot" });

  const changed = Buffer.from(whole);
  changed[100] = changed[100]! ^ 0xff; // inside the codes and destinations
  writeFileSync(path, changed);
  expect(readMapSnapshot(path, "db/1/42")).toEqual({ snapshot: null, why: "damaged (checksum)" });

  writeFileSync(path, whole.subarray(0, whole.byteLength - 10));
  expect(readMapSnapshot(path, "db/1/42").snapshot).toBeNull();
  writeFileSync(path, whole.subarray(1000));
  expect(readMapSnapshot(path, "db/1/42").snapshot).toBeNull();
  writeFileSync(path, "");
  expect(readMapSnapshot(path, "db/1/42").snapshot).toBeNull();

  const text = whole.toString("latin1").replace('"format":1', '"format":9');
  writeFileSync(path, Buffer.from(text, "latin1"));
  expect(readMapSnapshot(path, "db/1/42")).toEqual({ snapshot: null, why: "another format" });

  writeFileSync(path, whole);
  expect(readMapSnapshot(path, "db/1/42").snapshot).not.toBeNull();
});
