// The address parsers behind TRUSTED_PROXIES and X-Forwarded-For: what is an address, and what
// a per-address limit counts under.
import { expect, test } from "bun:test";
import { ipv4Int, ipv6Words, isIp, limitKey, normaliseIp, parseProxyEntry } from "./ip";

test("IPv4: dotted quads only, no leading zeros, each part at most 255", () => {
  expect(ipv4Int("0.0.0.0")).toBe(0);
  expect(ipv4Int("255.255.255.255")).toBe(0xffffffff);
  expect(ipv4Int("192.0.2.1")).toBe(0xc0000201);
  for (const bad of ["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.04", "1..2.3", "1.2.3.", ".1.2.3", "1.2.3.4 ", "a.b.c.d", "1.2.3.-4", "1234.1.1.1"]) {
    expect({ bad, v: ipv4Int(bad) }).toEqual({ bad, v: null });
  }
});

test("IPv6: full, compressed, with an IPv4 tail; one '::' at most", () => {
  expect(ipv6Words("::1")).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
  expect(ipv6Words("2001:db8::")).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0]);
  expect(ipv6Words("2001:DB8:0:0:0:0:0:1")).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]);
  expect(ipv6Words("::ffff:192.0.2.1")).toEqual([0, 0, 0, 0, 0, 0xffff, 0xc000, 0x201]);
  for (const bad of ["", ":", "1::2::3", "12345::", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "g::1", "1.2.3.4::", "::1.2.3", "[::1]", "::1%eth0"]) {
    expect({ bad, v: ipv6Words(bad) }).toEqual({ bad, v: null });
  }
  expect(isIp("not-an-ip<script>")).toBe(false);
});

test("TRUSTED_PROXIES entries: addresses and CIDR ranges", () => {
  expect(parseProxyEntry("10.0.0.0/8")).toEqual({ kind: "v4", base: 0x0a000000, bits: 8 });
  expect(parseProxyEntry("127.0.0.1")).toEqual({ kind: "v4", base: 0x7f000001, bits: 32 });
  expect(parseProxyEntry("fd00::/8")).toMatchObject({ kind: "v6", bits: 8 });
  for (const bad of ["10.0.0.0/33", "10.0.0.0/", "10.0.0.0/x", "::/129", "example.com", "10.0.0.0/8/8"]) expect(parseProxyEntry(bad)).toBeNull();
});

test("limits count IPv4 per address and IPv6 per /64; mapped IPv4 is IPv4", () => {
  expect(limitKey("192.0.2.1")).toBe("192.0.2.1");
  expect(limitKey("2001:db8:1:2::1")).toBe(limitKey("2001:db8:1:2:ffff:ffff:ffff:ffff"));
  expect(limitKey("2001:db8:1:2::1")).not.toBe(limitKey("2001:db8:1:3::1"));
  expect(normaliseIp("::ffff:192.0.2.1")).toBe("192.0.2.1");
  expect(normaliseIp("::ffff:c000:201")).toBe("::ffff:c000:201");
});
