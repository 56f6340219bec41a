import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { compile, compileJson, decide, explain, languagesOf, parseLanguages, stickyDraw, type Facts } from "./decide";
import { SmartInput, type SmartStored } from "./schema";
import { agentOf } from "./visitor";

const stored = (input: Record<string, unknown>, passwordHash: string | null = null): SmartStored => {
  const s = v.parse(SmartInput, input);
  return { passwordHash, passwordVersion: 1, maxClicks: s.maxClicks ?? null, fallbackUrl: s.fallbackUrl || null, rules: s.rules, split: s.split ?? null };
};

const NOW = Date.parse("2026-06-15T12:00:00Z");
const visitor = (f: Partial<Facts> = {}): Facts => ({ device: null, os: null, browser: null, languages: [], country: null, city: null, now: NOW, visitorId: null, clicks: 0, ...f });
const DEFAULT = "https://example.com/default";

const RULES = {
  rules: [
    { name: "iPhone", when: { os: ["ios"] }, url: "https://apps.apple.com/app/x" },
    { name: "Android", when: { os: ["android"] }, url: "https://play.google.com/store/apps/x" },
    { when: { device: ["tablet"] }, url: "https://example.com/tablet" },
    { when: { browser: ["firefox", "edge"] }, url: "https://example.com/fx" },
    { when: { language: ["en"] }, url: "https://example.com/en" },
    { when: { language: ["pt-BR"] }, url: "https://example.com/pt-br" },
    { when: { country: ["de", "AT"] }, url: "https://example.com/dach" },
    { when: { city: ["São Paulo"] }, url: "https://example.com/sp" },
    { when: { from: "2026-12-24T00:00:00Z", until: "2026-12-27T00:00:00Z" }, url: "https://example.com/xmas" },
    { when: { device: ["desktop"], country: ["FR"] }, url: "https://example.com/fr-desktop" },
  ],
};

describe("rules: each condition kind, first match wins, default otherwise", () => {
  const c = compile(stored(RULES))!;
  const cases: [string, Partial<Facts>, string, string][] = [
    ["iOS → App Store", { os: "ios", device: "mobile" }, "https://apps.apple.com/app/x", "rule:1"],
    ["Android → Play", { os: "android", device: "mobile", browser: "firefox" }, "https://play.google.com/store/apps/x", "rule:2"],
    ["tablet (not iOS/Android)", { device: "tablet", os: "windows" }, "https://example.com/tablet", "rule:3"],
    ["browser Firefox", { browser: "firefox", os: "linux" }, "https://example.com/fx", "rule:4"],
    ["browser Edge", { browser: "edge" }, "https://example.com/fx", "rule:4"],
    ["English visitor", { languages: parseLanguages("en-US,en;q=0.9") }, "https://example.com/en", "rule:5"],
    ["Italian visitor with English at 0.8 is not English", { languages: parseLanguages("it-IT,it;q=0.9,en-US;q=0.8,en;q=0.7") }, DEFAULT, "default"],
    ["pt-BR matches only pt-BR", { languages: parseLanguages("pt-BR") }, "https://example.com/pt-br", "rule:6"],
    ["pt-PT does not match pt-BR", { languages: parseLanguages("pt-PT,pt;q=0.9") }, DEFAULT, "default"],
    ["country DE", { country: "DE" }, "https://example.com/dach", "rule:7"],
    ["country AT (lower-case in the rule is normalised)", { country: "AT" }, "https://example.com/dach", "rule:7"],
    ["city, any case", { city: "são paulo", country: "BR" }, "https://example.com/sp", "rule:8"],
    ["inside the date window", { now: Date.parse("2026-12-25T10:00:00Z") }, "https://example.com/xmas", "rule:9"],
    ["window end is exclusive", { now: Date.parse("2026-12-27T00:00:00Z") }, DEFAULT, "default"],
    ["before the window", { now: Date.parse("2026-12-23T23:59:59Z") }, DEFAULT, "default"],
    ["all conditions of a rule must hold", { device: "desktop", country: "FR" }, "https://example.com/fr-desktop", "rule:10"],
    ["one condition of two is not enough", { device: "mobile", country: "FR" }, DEFAULT, "default"],
    ["ordering: iOS + German goes to the earlier iOS rule", { os: "ios", country: "DE" }, "https://apps.apple.com/app/x", "rule:1"],
    ["unknown facts match nothing", {}, DEFAULT, "default"],
  ];
  for (const [name, facts, href, route] of cases) {
    test(name, () => {
      expect(decide(c, visitor(facts), 1, DEFAULT)).toEqual({ href, route });
      // The simulator explains the same decision.
      const e = explain(c, visitor(facts), 1, DEFAULT);
      expect([e.href, e.route]).toEqual([href, route]);
    });
  }
});

describe("click limit", () => {
  const withFallback = compile(stored({ maxClicks: 3, fallbackUrl: "https://example.com/sold-out" }))!;
  const without = compile(stored({ maxClicks: 3 }))!;
  test.each([
    [0, DEFAULT, "default"],
    [2, DEFAULT, "default"],
    [3, "https://example.com/sold-out", "fallback"],
    [40, "https://example.com/sold-out", "fallback"],
  ])("with a fallback, after %d clicks", (clicks, href, route) => {
    expect(decide(withFallback, visitor({ clicks }), 1, DEFAULT)).toEqual({ href, route });
  });
  test("without a fallback: gone (the 410 page) at exactly N", () => {
    expect(decide(without, visitor({ clicks: 2 }), 1, DEFAULT).route).toBe("default");
    expect(decide(without, visitor({ clicks: 3 }), 1, DEFAULT)).toEqual({ href: null, route: "gone" });
  });
  test("the limit comes before the rules", () => {
    const c = compile(stored({ maxClicks: 1, rules: [{ when: { os: ["ios"] }, url: "https://example.com/ios" }] }))!;
    expect(decide(c, visitor({ os: "ios", clicks: 1 }), 1, DEFAULT)).toEqual({ href: null, route: "gone" });
  });
});

describe("A/B split", () => {
  const split = { split: { variants: [{ url: "https://example.com/a", weight: 70 }, { url: "https://example.com/b", weight: 20 }, { url: "https://example.com/c", weight: 10 }] } };
  test("weights hold over 20,000 draws (within 4 standard deviations)", () => {
    const c = compile(stored(split))!;
    const n = 20_000;
    const got: Record<string, number> = {};
    for (let i = 0; i < n; i++) {
      const r = decide(c, visitor(), 1, DEFAULT).route;
      got[r] = (got[r] ?? 0) + 1;
    }
    for (const [route, p] of [["variant:1", 0.7], ["variant:2", 0.2], ["variant:3", 0.1]] as const) {
      const sd = Math.sqrt(n * p * (1 - p));
      expect(Math.abs((got[route] ?? 0) - n * p)).toBeLessThan(4 * sd);
    }
  });
  test("sticky: one visitor always gets one destination; different visitors spread by weight", () => {
    const c = compile(stored({ split: { ...split.split, sticky: true } }))!;
    const first = decide(c, visitor({ visitorId: "visitor-123456789" }), 7, DEFAULT);
    for (let i = 0; i < 50; i++) expect(decide(c, visitor({ visitorId: "visitor-123456789" }), 7, DEFAULT)).toEqual(first);
    const n = 10_000;
    let a = 0;
    for (let i = 0; i < n; i++) if (decide(c, visitor({ visitorId: crypto.randomUUID() }), 7, DEFAULT).route === "variant:1") a++;
    expect(Math.abs(a - 0.7 * n)).toBeLessThan(4 * Math.sqrt(n * 0.21));
  });
  test("sticky draw differs per link", () => {
    const draws = new Set(Array.from({ length: 20 }, (_, i) => stickyDraw("same-visitor-id", i, 1000)));
    expect(draws.size).toBeGreaterThan(10);
  });
  test("rules win over the split", () => {
    const c = compile(stored({ ...split, rules: [{ when: { country: ["JP"] }, url: "https://example.com/jp" }] }))!;
    expect(decide(c, visitor({ country: "JP" }), 1, DEFAULT)).toEqual({ href: "https://example.com/jp", route: "rule:1" });
    expect(decide(c, visitor({ country: "US" }), 1, DEFAULT, () => 0.75).route).toBe("variant:2");
  });
});

describe("Accept-Language weights (RFC 9110 qvalue)", () => {
  test.each([
    ["en;q=abc", []],
    ["en;q=1.5", []],
    ["en;q=", []],
    ["en;q=0.9x", []],
    ["en;q=abc;q=1", []],
    ["de;q=0.5,en;q=abc", [{ tag: "de", q: 0.5 }]],
    ["en;Q=0.95", [{ tag: "en", q: 0.95 }]],
    ["en;q=1.000", [{ tag: "en", q: 1 }]],
    ["en; q = 0.9", [{ tag: "en", q: 0.9 }]],
    ["en;level=1", [{ tag: "en", q: 1 }]],
  ])("%p", (header, want) => {
    expect(parseLanguages(header)).toEqual(want);
  });
  test("a malformed weight does not make a tag match a language rule at full weight", () => {
    const c = compile(stored({ rules: [{ when: { language: ["en"] }, url: "https://example.com/en" }] }))!;
    expect(decide(c, visitor({ languages: languagesOf("it,en;q=abc") }), 1, DEFAULT).route).toBe("default");
  });
});

describe("compile", () => {
  test("a link with nothing that changes a redirect compiles to null (the plain-link path)", () => {
    expect(compile(null)).toBeNull();
    expect(compile(stored({}))).toBeNull();
  });
  test("needs: only the facts the rules read", () => {
    expect(compile(stored({ rules: [{ when: { language: ["en"] }, url: "https://x.example/" }] }))!.needs).toEqual({ agent: false, language: true, place: false });
    expect(compile(stored({ rules: [{ when: { os: ["ios"], city: ["Paris"] }, url: "https://x.example/" }] }))!.needs).toEqual({ agent: true, language: false, place: true });
    expect(compile(stored({ maxClicks: 5 }))!.needs).toEqual({ agent: false, language: false, place: false });
  });
  test("links with the same settings one after another share one compiled object; the same rules with other destinations share the rules", () => {
    const json = (url: string) => JSON.stringify(stored({ rules: [{ name: "iPhone", when: { os: ["ios"] }, url }] }));
    const a = compileJson(json("https://x.example/1"));
    expect(compileJson(json("https://x.example/1"))).toBe(a);
    const b = compileJson(json("https://x.example/2"))!;
    expect(b).not.toBe(a);
    expect(b.rules).toBe(a!.rules);
    expect(b.hrefs).toEqual(["https://x.example/2"]);
    expect(decide(b, visitor({ os: "ios" }), 1, DEFAULT)).toEqual({ href: "https://x.example/2", route: "rule:1" });
  });
  test("settings changed in place and compiled again are compiled anew, not taken from the last link's", () => {
    const s = stored({ rules: [{ when: { os: ["ios"] }, url: "https://x.example/" }] });
    expect(decide(compile(s)!, visitor({ os: "ios" }), 1, DEFAULT).route).toBe("rule:1");
    s.rules[0]!.when.os![0] = "android";
    const again = compile(s)!;
    expect(decide(again, visitor({ os: "ios" }), 1, DEFAULT).route).toBe("default");
    expect(decide(again, visitor({ os: "android" }), 1, DEFAULT).route).toBe("rule:1");
  });
  test("a rule's or destination's click records its stable id, not its place; the same rules under other ids are not shared", () => {
    const rule = (id: number, os: "ios" | "android") => ({ id, name: os, when: { os: [os] }, url: `https://x.example/${os}` });
    const c = compile(stored({ rules: [rule(7, "android"), rule(2, "ios")] }))!;
    expect(decide(c, visitor({ os: "ios" }), 1, DEFAULT).route).toBe("rule:2");
    expect(decide(c, visitor({ os: "android" }), 1, DEFAULT).route).toBe("rule:7");
    const d = compile(stored({ rules: [rule(1, "android"), rule(2, "ios")] }))!;
    expect(d.rules).not.toBe(c.rules);
    expect(decide(d, visitor({ os: "android" }), 1, DEFAULT).route).toBe("rule:1");
    const v = compile(stored({ split: { sticky: false, variants: [{ id: 4, name: "", url: "https://x.example/a", weight: 1 }, { id: 1, name: "", url: "https://x.example/b", weight: 1 }] } }))!;
    expect(decide(v, visitor(), 1, DEFAULT, () => 0).route).toBe("variant:4");
    expect(decide(v, visitor(), 1, DEFAULT, () => 0.9).route).toBe("variant:1");
  });
  test("a password alone makes the link smart", () => {
    expect(compile(stored({}, "$argon2id$hash"))!.password).toEqual({ hash: "$argon2id$hash", version: 1 });
  });
});

describe("Accept-Language", () => {
  test.each([
    ["en-US,en;q=0.9", [{ tag: "en-us", q: 1 }, { tag: "en", q: 0.9 }]],
    ["it;q=0.5, de", [{ tag: "de", q: 1 }, { tag: "it", q: 0.5 }]],
    ["*, fr;q=0", []],
    // A malformed weight is no weight at all (RFC 9110's qvalue), not full weight.
    ["<script>, en;q=abc", []],
    ["", []],
  ])("%p", (header, want) => {
    expect(parseLanguages(header)).toEqual(want);
  });
});

describe("explain", () => {
  test("says which rule matched and why the others did not", () => {
    const c = compile(stored(RULES))!;
    const e = explain(c, visitor({ country: "DE", os: "windows" }), 1, DEFAULT);
    expect(e.route).toBe("rule:7");
    expect(e.steps).toHaveLength(7);
    expect(e.steps[0]).toEqual({ rule: "iPhone", matched: false, why: "OS is windows, not ios" });
    expect(e.steps[6]!.matched).toBe(true);
    expect(e.reason).toContain("Rule 7 matched");
  });
  test("a condition's values are listed in the order the rule gives them, once each", () => {
    const c = compile(stored({ rules: [{ when: { browser: ["edge", "firefox", "edge"] }, url: "https://x.example/" }, { when: { country: ["at", "DE", "AT"] }, url: "https://y.example/" }] }))!;
    const e = explain(c, visitor({ browser: "chrome", country: "FR" }), 1, DEFAULT);
    expect(e.steps.map((s) => s.why)).toEqual(["browser is chrome, not edge or firefox", "country is FR, not AT or DE"]);
  });
  test("languagesOf is parseLanguages, remembered", () => {
    const header = "it-IT,it;q=0.9,en-US;q=0.8";
    expect(languagesOf(header)).toEqual(parseLanguages(header));
    expect(languagesOf(header)).toBe(languagesOf(header));
    expect(languagesOf(null)).toEqual([]);
  });
  test("the language step names the threshold", () => {
    const c = compile(stored({ rules: [{ when: { language: ["en"] }, url: "https://x.example/" }] }))!;
    const e = explain(c, visitor({ languages: parseLanguages("it,en;q=0.8") }), 1, DEFAULT);
    expect(e.steps[0]!.why).toBe("no language en at quality 0.9 or more (visitor: it;q=1, en;q=0.8)");
  });
});

describe("user agents as the rules see them", () => {
  test.each([
    ["Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1", { device: "mobile", os: "ios", browser: "safari" }],
    ["Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36", { device: "mobile", os: "android", browser: "chrome" }],
    ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0", { device: "desktop", os: "windows", browser: "edge" }],
    ["Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:125.0) Gecko/20100101 Firefox/125.0", { device: "desktop", os: "macos", browser: "firefox" }],
    ["Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1", { device: "tablet", os: "ios", browser: "safari" }],
  ])("%s", (ua, want) => {
    expect(agentOf(ua)).toEqual(want as never);
  });
});
