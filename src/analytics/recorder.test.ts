import { describe, expect, test } from "bun:test";
import { storeIp } from "./writer";
import { isPrivateIp } from "./geo";
import { csvCell } from "../shared/csv";

describe("IP_STORAGE", () => {
  const cases: [string, "truncated" | "full" | "none", string | null][] = [
    ["203.0.113.77", "truncated", "203.0.113.0"],
    ["2001:db8:85a3:8d3:1319:8a2e:370:7348", "truncated", "2001:db8:85a3::"],
    ["2001:db8::1", "truncated", "2001:db8:0::"],
    ["::1", "truncated", "0:0:0::"],
    ["203.0.113.77", "full", "203.0.113.77"],
    ["203.0.113.77", "none", null],
    ["not-an-ip", "truncated", null],
  ];
  for (const [ip, mode, out] of cases) test(`${ip} (${mode}) → ${out}`, () => expect(storeIp(ip, mode)).toBe(out));
});

describe("private addresses have no location", () => {
  for (const ip of ["10.1.2.3", "127.0.0.1", "192.168.1.1", "172.16.0.1", "172.31.255.255", "169.254.1.1", "100.64.0.1", "::1", "fd00::1", "fe80::1", "::ffff:10.0.0.1", "garbage"]) {
    test(`${ip} is private`, () => expect(isPrivateIp(ip)).toBe(true));
  }
  for (const ip of ["8.8.8.8", "172.32.0.1", "2a00:1450:4001::1", "::ffff:8.8.8.8"]) {
    test(`${ip} is public`, () => expect(isPrivateIp(ip)).toBe(false));
  }
});

describe("CSV cells", () => {
  const cases: [string | null, string][] = [
    [null, ""],
    ["plain", "plain"],
    ["a,b", '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ["line\nbreak", '"line\nbreak"'],
    ["=1+1", "'=1+1"],
    ["+cmd", "'+cmd"],
    ["-2", "'-2"],
    ["@SUM(A1)", "'@SUM(A1)"],
    // Reversible: a cell already starting with apostrophes before a formula character gets one more.
    ["'=already quoted", "''=already quoted"],
    ["''+x", "'''+x"],
    ["'hello", "'hello"],
  ];
  for (const [input, out] of cases) test(`${JSON.stringify(input)} → ${out}`, () => expect(csvCell(input)).toBe(out));
});
