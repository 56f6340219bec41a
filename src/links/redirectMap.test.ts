// The packed code → link map (redirectMap.ts) must answer exactly as a Map of the same writes
// would, through growth, deletes, renames, compaction and codes or destinations it cannot pack.
import { expect, test } from "bun:test";
import { type CachedLink, RedirectMap, hrefOf } from "./redirectMap";
import { compile } from "../smart/decide";

/** A smart link's settings, each its own (its click limit `n`). */
const smart = (n: number) => compile({ passwordHash: null, passwordVersion: 0, maxClicks: n, fallbackUrl: null, rules: [], split: null })!;

const link = (id: number, href = `https://example.com/p/${id}?utm_source=x`, extra: Partial<CachedLink> = {}): CachedLink => ({ id, href, active: true, expiresMs: null, ...extra });

test("the same answers as a Map over 50,000 random sets, deletes and re-sets (growth, tombstones, compaction, smart links' settings by slot)", () => {
  const packed = new RedirectMap();
  const plain = new Map<string, CachedLink>();
  let seed = 42;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let i = 0; i < 50_000; i++) {
    const code = `c${rnd(8000).toString(36)}`;
    const op = rnd(10);
    if (op < 6) {
      const l = link(i, `https://h${rnd(50)}.example/${"x".repeat(rnd(300))}`, {
        active: rnd(5) !== 0,
        expiresMs: rnd(3) === 0 ? 1_700_000_000_000 + i : null,
        // A freed slot reused by a plain link must not keep the smart link's settings.
        ...(rnd(4) === 0 ? { smart: smart(i + 1) } : {}),
      });
      packed.set(code, l);
      plain.set(code, l);
    } else if (op < 9) {
      expect(packed.delete(code)).toBe(plain.delete(code));
    } else {
      expect(packed.get(code)).toEqual(plain.get(code));
    }
  }
  expect(packed.size).toBe(plain.size);
  for (const [code, l] of plain) expect(packed.get(code)).toEqual(l);
  for (let i = 0; i < 8000; i++) {
    const code = `c${i.toString(36)}`;
    expect(packed.get(code)).toEqual(plain.get(code));
  }
  packed.trim();
  for (const [code, l] of plain) expect(packed.get(code)).toEqual(l);
});

test("a cached answer is dropped when its link changes or goes", () => {
  const m = new RedirectMap();
  m.set("abc", link(1));
  expect(m.get("abc")?.href).toBe("https://example.com/p/1?utm_source=x");
  m.set("abc", link(1, "https://changed.example/"));
  expect(m.get("abc")?.href).toBe("https://changed.example/");
  m.set("abc", link(1, "https://changed.example/", { active: false }));
  expect(m.get("abc")?.active).toBe(false);
  m.delete("abc");
  expect(m.get("abc")).toBeUndefined();
});

test("codes and destinations that are not ASCII, or a code over 255 characters, are kept too", () => {
  const m = new RedirectMap();
  const odd: [string, CachedLink][] = [
    ["café", link(1)],
    ["😀", link(2)],
    ["plain", link(3, "https://example.com/ü")],
    ["x".repeat(300), link(4)],
  ];
  for (const [c, l] of odd) m.add(c, l);
  for (const [c, l] of odd) expect(m.get(c)).toEqual(l);
  expect(m.size).toBe(4);
  // An ASCII code that shares a prefix is a different key.
  expect(m.get("caf")).toBeUndefined();
  expect(m.delete("café")).toBe(true);
  expect(m.get("café")).toBeUndefined();
  expect(m.size).toBe(3);
});

test("codes differing only in case, or one a prefix of another, are different links", () => {
  const m = new RedirectMap();
  m.add("Abc", link(1));
  m.add("abc", link(2));
  m.add("abcd", link(3));
  expect(m.get("Abc")?.id).toBe(1);
  expect(m.get("abc")?.id).toBe(2);
  expect(m.get("abcd")?.id).toBe(3);
  expect(m.get("ab")).toBeUndefined();
  expect(m.get("ABC")).toBeUndefined();
});

test("hrefOf is the URL parser's href for every destination: 300,000 random ones around the fast path's edges, and the hand-picked ones", () => {
  const picked = [
    "https://example.com/",
    "https://example.com",
    "HTTPS://Example.com/a",
    "https://example.com:443/a",
    "http://example.com:80/",
    "https://user@example.com/",
    "https://example.com./a",
    "https://1.2.3.4/a",
    "https://0x7f.1/a",
    "https://a.b.0x1f/",
    "https://xn--bcher-kva.example/",
    "https://b\u00fccher.example/",
    "https://example.com/a/../b",
    "https://example.com/a/./b",
    "https://example.com/a/%2e%2E/b",
    "https://example.com/.well-known/x",
    "https://example.com/it's?q='x'",
    "https://example.com/a b",
    "https://example.com/a\\b",
    "https://example.com/a#frag",
    "https://example.com/a?x=1&y=%41%zz",
    "https://example.com/\u00fcber?r=\"c\"",
    "https://ex-ample.co.uk/path;p=1/@user/~tilde!$&()*+,=:",
    "https://-x.example.com/",
    "https://example.c0m/",
    "https://example.123/",
  ];
  const chars = "aZ09-._~!$&'()*+,;=:@/?%#\\ \"<>`{}|^[]Ü\t.eE2xn";
  const hosts = ["example.com", "a.b.example.org", "xn--p1ai.example", "EXAMPLE.com", "1.2.3.4", "ex.com.", "localhost", "a-b.c0", "host.x9"];
  let seed = 42;
  const rand = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const random: string[] = [];
  for (let i = 0; i < 300_000; i++) {
    let path = "";
    for (let k = rand(12); k > 0; k--) path += chars[rand(chars.length)];
    random.push(`${rand(2) ? "https" : "http"}://${hosts[rand(hosts.length)]}${rand(8) ? "/" : ""}${path}`);
  }
  let fast = 0;
  for (const url of [...picked, ...random]) {
    let parsed: string | null;
    try {
      parsed = new URL(url).href;
    } catch {
      parsed = null;
    }
    if (parsed === null) {
      expect(() => hrefOf(url)).toThrow();
      continue;
    }
    expect(hrefOf(url)).toBe(parsed);
    if (hrefOf(url) === url) fast++;
  }
  // The fast path is taken often (the check is not vacuous).
  expect(fast).toBeGreaterThan(10_000);
});
