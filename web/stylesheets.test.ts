// Code splitting gives a lazily loaded screen's CSS its own file that nothing ever loads
// (Bun injects no <link> for it), so web/main.tsx imports every stylesheet the app uses.
import { expect, test } from "bun:test";
import { Glob } from "bun";
import { dirname, join, relative } from "node:path";

const web = import.meta.dir;
const CSS_IMPORT = /^import\s+"([^"]+\.css)";/gm;

/** A CSS import as a path from web/ (or the package path for node_modules). */
function resolved(from: string, spec: string) {
  return spec.startsWith(".") ? relative(web, join(dirname(from), spec)) : spec;
}

test("web/main.tsx imports every stylesheet any module imports", async () => {
  const main = join(web, "main.tsx");
  const inMain = new Set([...(await Bun.file(main).text()).matchAll(CSS_IMPORT)].map((m) => resolved(main, m[1]!)));
  const used = new Set<string>();
  for await (const file of new Glob("**/*.{ts,tsx}").scan(web)) {
    if (file.startsWith("e2e/")) continue;
    const path = join(web, file);
    for (const m of (await Bun.file(path).text()).matchAll(CSS_IMPORT)) used.add(resolved(path, m[1]!));
  }
  expect(used.size).toBeGreaterThan(5);
  expect([...used].filter((c) => !inMain.has(c))).toEqual([]);
});
