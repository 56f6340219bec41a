// Which parts of a message become links: http(s) only, sentence punctuation left outside.
import { describe, expect, test } from "bun:test";
import { linkParts, safeHref } from "./LinkedText";

describe("linkParts", () => {
  const cases: [string, string, ({ text: string } | { text: string; href: string })[]][] = [
    ["plain text", "just words", [{ text: "just words" }]],
    ["an https link in a sentence", "see https://a.test/x?y=1.", [{ text: "see " }, { text: "https://a.test/x?y=1", href: "https://a.test/x?y=1" }, { text: "." }]],
    ["www. gets https", "go www.shop.test now", [{ text: "go " }, { text: "www.shop.test", href: "https://www.shop.test/" }, { text: " now" }]],
    ["javascript: is text", "javascript:alert(1)", [{ text: "javascript:alert(1)" }]],
    ["data: is text", "data:text/html,<b>x</b>", [{ text: "data:text/html,<b>x</b>" }]],
    ["HTML stays text around a link", "<b>http://a.test</b>", [{ text: "<b>" }, { text: "http://a.test", href: "http://a.test/" }, { text: "</b>" }]],
    ["a bracket that belongs to the link", "(https://en.wikipedia.org/wiki/Foo_(bar))", [{ text: "(" }, { text: "https://en.wikipedia.org/wiki/Foo_(bar))", href: "https://en.wikipedia.org/wiki/Foo_(bar))" }]],
    ["two links", "http://a.test and http://b.test", [{ text: "http://a.test", href: "http://a.test/" }, { text: " and " }, { text: "http://b.test", href: "http://b.test/" }]],
  ];
  for (const [name, input, expected] of cases) test(name, () => expect(linkParts(input)).toEqual(expected));

  test("the parts always join back to the original text", () => {
    const text = `a https://x.test/(y), www.z.test! <script>alert(1)</script> http://`;
    expect(linkParts(text).map((p) => p.text).join("")).toBe(text);
  });
});

describe("safeHref", () => {
  const cases: [string, string | null][] = [
    ["https://a.test", "https://a.test/"],
    ["HTTP://A.TEST/x", "http://a.test/x"],
    ["ftp://a.test", null],
    ["javascript:alert(1)", null],
    ["https://", null],
  ];
  for (const [input, out] of cases) test(`${input} → ${out}`, () => expect(safeHref(input)).toBe(out));
});
