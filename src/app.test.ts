import { expect, test } from "bun:test";
import { setup } from "./test/helpers";
import { API_WORDS, isApiWord, isReserved, RESERVED_WORDS } from "./shared/reserved";

const t = await setup();

test("every first path segment the server routes is a reserved word", () => {
  const firsts = new Set<string>();
  for (const r of t.app.routes) {
    const first = r.path.split("/")[1] ?? "";
    // Parameters and wildcards are where short codes live; chunk files are reserved by prefix.
    if (!first || first.startsWith(":") || first === "*") continue;
    firsts.add(first);
  }
  expect(firsts.size).toBeGreaterThan(0);
  for (const f of firsts) expect(isReserved(f)).toBe(true);
});

test("every fixed page of the web route table is a reserved word", async () => {
  const source = await Bun.file(new URL("../web/routes.tsx", import.meta.url)).text();
  const paths = [...source.matchAll(/path="\/([^/":]+)/g)].map((m) => m[1]!);
  expect(paths.length).toBeGreaterThan(0);
  for (const p of paths) expect(RESERVED_WORDS as readonly string[]).toContain(p);
});

test("every fixed second segment of an /api route is an API word, which no username may be", async () => {
  const words = new Set<string>();
  for (const r of t.app.routes) {
    const [, first, second] = r.path.split("/");
    if (first === "api" && second && !second.startsWith(":") && second !== "*") words.add(second);
  }
  expect(words.size).toBeGreaterThan(10);
  for (const w of words) expect(API_WORDS as readonly string[]).toContain(w);
  for (const w of ["links", "api-keys", "user", "Notifications"]) {
    expect(isApiWord(w)).toBe(true);
    const r = await t.call("POST", "/api/register", { body: { username: w, password: "a long passphrase", email: `${w}@example.test` } });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toBe("That username is reserved. Please choose another.");
  }
  expect(await t.database.get("SELECT id FROM users WHERE username IN ('links', 'api-keys', 'user', 'notifications')")).toBeNull();
});

test("reserved words are matched case-insensitively", () => {
  expect(isReserved("API")).toBe(true);
  expect(isReserved("Link-Tracker")).toBe(true);
  expect(isReserved("my-link")).toBe(false);
});
