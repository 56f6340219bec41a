// Smart links' memory in the redirect map (issue 24, H-smartcost): bounded, in-process, no socket.
//
//   node_modules/.bin/bun run scripts/bench/smart-heap.ts          # BENCH_LINKS=100000, BENCH_RULES=3
//
// Fills a RedirectMap with BENCH_LINKS plain links, then a second one with as many links carrying
// the benchmark's three rules (OS, language, country; each link its own destinations, as
// scripts/bench/redirect.ts seeds them), compiled from their JSON as the service does, and prints
// the heap bytes and JS objects per link of each (bun:jsc heapStats after a full GC) and the
// share of the smart heap by object type.
import { heapStats } from "bun:jsc";
import { RedirectMap } from "../../src/links/redirectMap";
import { compileJson } from "../../src/smart/decide";

const LINKS = Number(process.env.BENCH_LINKS ?? 100_000);
const RULES = Number(process.env.BENCH_RULES ?? 3);

/** The same settings scripts/bench/redirect.ts writes for link `i`. */
export function benchSmart(i: number, rules: number) {
  return JSON.stringify({
    passwordHash: null,
    passwordVersion: 0,
    maxClicks: null,
    fallbackUrl: null,
    split: null,
    rules: [
      { name: "iPhone", when: { os: ["ios"] }, url: `https://apps.apple.com/app/id${i}` },
      { name: "German", when: { language: ["de"] }, url: `https://example.com/de/${i}` },
      { name: "France", when: { country: ["FR"] }, url: `https://example.com/fr/${i}` },
    ].slice(0, rules),
  });
}

function measure() {
  Bun.gc(true);
  const s = heapStats();
  return { bytes: s.heapSize, objects: s.objectCount, types: s.objectTypeCounts as Record<string, number> };
}

function fill(smart: boolean) {
  const map = new RedirectMap();
  for (let i = 0; i < LINKS; i++) {
    const code = `c${i.toString(36).padStart(6, "0")}`;
    const c = smart ? compileJson(benchSmart(i, RULES)) : null;
    map.add(code, { id: i + 1, href: `https://example.com/landing/${i}?utm_source=bench`, active: true, expiresMs: null, ...(c ? { smart: c } : {}) });
  }
  map.trim();
  return map;
}

if (import.meta.main) {
  const base = measure();
  let plain: RedirectMap | null = fill(false);
  const afterPlain = measure();
  plain.get("c000001");
  plain = null;
  const cleared = measure();
  const t0 = performance.now();
  const smart = fill(true);
  const fillMs = performance.now() - t0;
  const afterSmart = measure();
  smart.get("c000001");
  const per = (a: { bytes: number; objects: number }, b: { bytes: number; objects: number }) =>
    `${((b.bytes - a.bytes) / LINKS).toFixed(0)} B/link, ${((b.objects - a.objects) / LINKS).toFixed(1)} objects/link`;
  console.log(`${LINKS} links; heap base ${(base.bytes / 1e6).toFixed(1)} MB`);
  console.log(`plain links:              ${per(base, afterPlain)}`);
  console.log(`links with ${RULES} rules each:   ${per(cleared, afterSmart)}; compiled and added in ${fillMs.toFixed(0)} ms`);
  const grew = Object.entries(afterSmart.types)
    .map(([t, n]) => [t, n - (cleared.types[t] ?? 0)] as const)
    .filter(([, n]) => n >= LINKS / 10)
    .sort((a, b) => b[1] - a[1]);
  for (const [t, n] of grew) console.log(`  ${t.padEnd(24)} +${(n / LINKS).toFixed(2)} per link`);
  console.log(`RSS ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`);
}
