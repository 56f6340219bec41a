import { expect, test } from "bun:test";
import { safeLocalPath } from "./safePath";

const origin = "https://links.example.test";

test("same-site paths pass through", () => {
  expect(safeLocalPath("/", origin)).toBe("/");
  expect(safeLocalPath("/invite/abc?x=1#y", origin)).toBe("/invite/abc?x=1#y");
});

test("anything that leaves the site is refused", () => {
  for (const bad of ["//evil.example", "/\\evil.example", "/\t/evil.example", "https://evil.example/", "javascript:alert(1)", "evil", "", null, undefined]) {
    expect(safeLocalPath(bad as string, origin)).toBeNull();
  }
});
