// The redirect map kept on disk between runs (src/links/mapSnapshot.ts), through real processes
// on a throwaway PostgreSQL: a graceful stop writes it; the next start takes it, reads what the
// other instance changed meanwhile (edits, a rename, deletes, new links, a link made smart), and
// answers every code as the database says; a damaged snapshot or MAP_SNAPSHOT=false reads every
// link instead. Run by scripts/test.sh's PostgreSQL section; without PostgreSQL these fail.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Instance, json, restartInstance, signUp, startTwins, stopTwins, target, type Twins } from "../test/instances";
import { SNAPSHOT_FILE } from "./service";

setDefaultTimeout(60_000);

let twins: Twins;
let a: Instance;
let b: Instance;
let cookie = "";

beforeAll(async () => {
  twins = await startTwins("snapshot", { logs: true });
  ({ a, b } = twins);
  cookie = await signUp(b, "snap");
}, 120_000);

afterAll(() => stopTwins(twins));

const create = async (on: Instance, code: string, extra: Record<string, unknown> = {}) => {
  const r = await fetch(`${on.base}/api/links`, { method: "POST", ...json({ originalUrl: `https://example.com/${code}`, title: code, shortCode: code, ...extra }, cookie) });
  expect(r.status).toBe(201);
  return ((await r.json()) as { id: number }).id;
};
const patch = (on: Instance, id: number, body: Record<string, unknown>) => fetch(`${on.base}/api/links/${id}`, { method: "PATCH", ...json(body, cookie) });
/** The log lines of `i` that carry `msg`, parsed. */
const logged = (i: Instance, msg: string) => i.log.filter((l) => l.includes(`"msg":"${msg}"`)).map((l) => JSON.parse(l) as Record<string, unknown>);
/** Stops `i` gracefully and waits for it to exit (its folder kept). */
async function stop(i: Instance) {
  i.proc.kill("SIGTERM");
  await i.proc.exited;
}

test("a start from the snapshot answers as the database does, after edits, a rename, deletes, new links and a link made smart while it was stopped (smart links are read at every start)", async () => {
  const ids: Record<string, number> = {};
  for (const code of ["keep", "edit", "rename", "gone", "later-smart"]) ids[code] = await create(b, code);
  ids.smart = await create(b, "smart", { smart: { maxClicks: 1, fallbackUrl: "https://example.com/sold-out" } });
  for (const code of ["keep", "edit", "rename", "gone", "smart"]) expect(await target(a, code)).toBe(`https://example.com/${code}`);

  await stop(a);
  expect(logged(a, "redirect map kept for the next start")).toHaveLength(1);
  expect(existsSync(join(a.dir, SNAPSHOT_FILE))).toBe(true);

  // Meanwhile, on the other instance:
  expect((await patch(b, ids.edit!, { originalUrl: "https://example.com/edited" })).status).toBe(200);
  expect((await patch(b, ids.rename!, { shortCode: "renamed" })).status).toBe(200);
  expect((await fetch(`${b.base}/api/links/${ids.gone}`, { method: "DELETE", headers: { cookie } })).status).toBe(200);
  expect((await patch(b, ids["later-smart"]!, { smart: { maxClicks: 1, fallbackUrl: "https://example.com/over" } })).status).toBe(200);
  await create(b, "new-one");

  await restartInstance(twins, a, "SIGTERM");
  const loaded = logged(a, "redirect map loaded").at(-1)!;
  expect(loaded.from).toBe("snapshot");
  for (const [code, want] of [
    ["keep", "https://example.com/keep"],
    ["edit", "https://example.com/edited"],
    ["renamed", "https://example.com/rename"],
    ["rename", 404],
    ["gone", 404],
    ["new-one", "https://example.com/new-one"],
    ["later-smart", "https://example.com/later-smart"],
    ["smart", "https://example.com/smart"],
  ] as const) {
    expect(await target(a, code)).toBe(want);
    expect(await target(b, code)).toBe(want);
  }
});

test("a damaged snapshot, or MAP_SNAPSHOT=false, reads every link instead, and the redirects are the same", async () => {
  await stop(a);
  const path = join(a.dir, SNAPSHOT_FILE);
  const file = readFileSync(path);
  file[10] = file[10]! ^ 0xff;
  writeFileSync(path, file);
  await restartInstance(twins, a, "SIGTERM");
  expect(logged(a, "redirect map snapshot not used").at(-1)?.why).toBe("damaged (checksum)");
  expect(logged(a, "redirect map loaded").at(-1)!.from).toBeUndefined();
  expect(await target(a, "keep")).toBe("https://example.com/keep");
  expect(await target(a, "edit")).toBe("https://example.com/edited");

  // Turned off: nothing is written at the stop, nothing read at the start.
  const off = { ...twins, opts: { ...twins.opts, env: { MAP_SNAPSHOT: "false" } } };
  await restartInstance(off, a, "SIGTERM");
  const kept = logged(a, "redirect map kept for the next start").length;
  await restartInstance(off, a, "SIGTERM");
  expect(logged(a, "redirect map kept for the next start").length).toBe(kept);
  expect(logged(a, "redirect map loaded").at(-1)!.from).toBeUndefined();
  expect(await target(a, "renamed")).toBe("https://example.com/rename");
});
