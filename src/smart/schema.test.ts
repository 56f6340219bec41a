import { describe, expect, test } from "bun:test";
import { applyUtm, readUtm } from "./schema";

describe("UTM parameters in a destination", () => {
  test.each([
    ["adds them, keeping the query and fragment", "https://example.com/p?a=1#top", { source: "news", medium: "email" }, "https://example.com/p?a=1&utm_source=news&utm_medium=email#top"],
    ["replaces one already there", "https://example.com/?utm_source=old", { source: "new" }, "https://example.com/?utm_source=new"],
    ["an empty value removes it", "https://example.com/?utm_source=x&b=2", { source: "" }, "https://example.com/?b=2"],
    ["absent fields are left alone", "https://example.com/?utm_campaign=c", { source: "s" }, "https://example.com/?utm_campaign=c&utm_source=s"],
    ["encodes spaces and symbols", "https://example.com/", { campaign: "spring sale & more" }, "https://example.com/?utm_campaign=spring+sale+%26+more"],
    ["not a URL: unchanged", "example", { source: "x" }, "example"],
  ])("%s", (_name, url, fields, want) => {
    expect(applyUtm(url, fields)).toBe(want);
  });
  test("reads them back", () => {
    expect(readUtm("https://example.com/?utm_source=a&utm_term=b")).toEqual({ source: "a", medium: "", campaign: "", term: "b", content: "" });
    expect(readUtm("not a url")).toBeNull();
  });
});
