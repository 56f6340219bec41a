// The limits on asking the database about unknown codes (missLookup.ts), with a counting finder
// in place of the store: the PostgreSQL side is src/links/instances.pg.test.ts.
import { expect, test } from "bun:test";
import { MISS_LOOKUP_BURST, MISS_LOOKUPS_IN_FLIGHT, MISS_LOOKUPS_PER_S, NEGATIVE_MS, missLookup } from "./missLookup";

const counting = (known: Record<string, string> = {}) => {
  const asked: string[] = [];
  const lookups = missLookup(async (code) => {
    asked.push(code);
    return known[code] ?? null;
  });
  return { asked, lookups };
};

test("a flood of distinct unknown codes asks at most the bucket's burst at once, then its rate", async () => {
  const { asked, lookups } = counting();
  const started = performance.now();
  for (let n = 0; n < 1_000; n++) await lookups.lookup(`x${n}`);
  expect(asked.length).toBe(MISS_LOOKUP_BURST);
  await Bun.sleep(250);
  for (let n = 0; n < 1_000; n++) await lookups.lookup(`y${n}`);
  // Past the burst, the rate over the time it all took (a quarter of a second and the floods
  // themselves, longer on a busy machine), one more for timer slack.
  const seconds = (performance.now() - started) / 1000;
  expect(asked.length - MISS_LOOKUP_BURST).toBeLessThanOrEqual(Math.ceil(MISS_LOOKUPS_PER_S * seconds) + 1);
  expect(asked.length - MISS_LOOKUP_BURST).toBeGreaterThan(0);
});

test("at most MISS_LOOKUPS_IN_FLIGHT at once; requests for one code share one lookup", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let asked = 0;
  const lookups = missLookup(async () => {
    asked++;
    await gate;
    return null;
  });
  const same = [lookups.lookup("a"), lookups.lookup("a"), lookups.lookup("a")];
  const others = Array.from({ length: 10 }, (_, n) => lookups.lookup(`o${n}`));
  expect(asked).toBe(MISS_LOOKUPS_IN_FLIGHT);
  release();
  expect(await Promise.all([...same, ...others])).toEqual(Array(13).fill(null));
});

test("a code the database did not have is not asked again for NEGATIVE_MS, unless it was put in the map meanwhile", async () => {
  const known: Record<string, string> = {};
  const { asked, lookups } = counting(known);
  expect(await lookups.lookup("new")).toBeNull();
  known.new = "https://example.com/new";
  expect(await lookups.lookup("new")).toBeNull();
  expect(asked.length).toBe(1);
  lookups.forget("new");
  expect(await lookups.lookup("new")).toBe("https://example.com/new");
  expect(await lookups.lookup("gone")).toBeNull();
  await Bun.sleep(NEGATIVE_MS + 20);
  await lookups.lookup("gone");
  expect(asked).toEqual(["new", "new", "gone", "gone"]);
});

test("the database away: null (the map's 404), and the code is asked again next time", async () => {
  let fail = true;
  const lookups = missLookup(async () => {
    if (fail) throw new Error("connection refused");
    return "https://example.com/back";
  });
  expect(await lookups.lookup("c")).toBeNull();
  fail = false;
  expect(await lookups.lookup("c")).toBe("https://example.com/back");
});
