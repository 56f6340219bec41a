// Smart links on two Threadlink processes sharing one PostgreSQL (issue 24): a rule or password
// changed on one is obeyed by the other within 100 ms (the settings travel with the link row,
// src/links/follow.ts); an unlock cookie made by one opens the link on the other (one shared
// key); the click limit's documented overshoot across instances holds; and a clicks reset on
// one opens a spent limit on the other within 100 ms. Real processes on
// loopback, as src/links/instances.pg.test.ts (the helpers are the same).
// Run by scripts/test.sh's PostgreSQL section; without PostgreSQL these fail, they never skip.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { FOLLOW_MS, type Instance, json, signUp, startTwins, stopTwins, target, type Twins } from "../test/instances";
import { SMART_SYNC_MS } from "./runtime";
import { WRITE_WITHIN_MS } from "../analytics/recorder";

// A timed-out test has its child processes killed by bun test: the instances too, for every
// test after it. The bounds that matter are asserted inside each test.
setDefaultTimeout(30_000);

let twins: Twins;
let a: Instance;
let b: Instance;

beforeAll(async () => {
  twins = await startTwins("smart_instances");
  ({ a, b } = twins);
}, 120_000);

afterAll(() => stopTwins(twins));



const UA_IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

/** GET as a visitor (a click): the Location, or the status. */
async function visit(on: Instance, code: string, headers: Record<string, string> = {}) {
  const r = await fetch(`${on.base}/${code}`, { redirect: "manual", headers });
  return r.status === 302 ? r.headers.get("location")! : r.status;
}

async function until(what: () => Promise<string | number>, want: string | number, limitMs: number) {
  const t0 = performance.now();
  for (;;) {
    const got = await what();
    const ms = performance.now() - t0;
    if (got === want) return ms;
    if (ms > limitMs) throw new Error(`after ${Math.round(ms)} ms still ${got}, not ${want}`);
  }
}

describe("smart links on two instances", () => {
  let cookie: string;
  let id: number;
  const code = "twin-smart";
  const putSmart = (on: Instance, body: unknown) => fetch(`${on.base}/api/links/${id}/smart`, { method: "PUT", ...json(body, cookie) });

  beforeAll(async () => {
    cookie = await signUp(a, "smarttwin");
    const r = await fetch(`${a.base}/api/links`, { method: "POST", ...json({ originalUrl: "https://example.com/plain", title: "Twin", shortCode: code }, cookie) });
    id = ((await r.json()) as { id: number }).id;
    await until(() => target(b, code), "https://example.com/plain", 2_000);
  });

  test(`a rule set on A is obeyed by B within ${FOLLOW_MS} ms, and removed again`, async () => {
    const rule = { rules: [{ when: { os: ["ios"] }, url: "https://apps.apple.com/app/twin" }] };
    // Untimed first (a first read may open a pool connection), then timed.
    expect((await putSmart(a, rule)).status).toBe(200);
    await until(() => visit(b, code, { "user-agent": UA_IPHONE }), "https://apps.apple.com/app/twin", 2_000);
    const r = await putSmart(a, { rules: [{ when: { os: ["ios"] }, url: "https://apps.apple.com/app/twin2" }] });
    expect(r.status).toBe(200);
    expect(await until(() => visit(b, code, { "user-agent": UA_IPHONE }), "https://apps.apple.com/app/twin2", 2_000)).toBeLessThan(FOLLOW_MS);
    expect((await putSmart(b, {})).status).toBe(200);
    expect(await until(() => visit(a, code, { "user-agent": UA_IPHONE }), "https://example.com/plain", 2_000)).toBeLessThan(FOLLOW_MS);
  });

  test(`a password set on A protects the link on B within ${FOLLOW_MS} ms; A's unlock opens B; a new password on B ends it on A`, async () => {
    expect((await putSmart(a, { password: "twin secret" })).status).toBe(200);
    expect(await until(() => visit(b, code), 200, 2_000)).toBeLessThan(FOLLOW_MS);
    const unlocked = await fetch(`${a.base}/${code}`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "password=twin+secret" });
    expect(unlocked.status).toBe(303);
    const unlock = unlocked.headers.get("set-cookie")!.split(";")[0]!;
    expect(await visit(b, code, { cookie: unlock })).toBe("https://example.com/plain");
    expect((await putSmart(b, { password: "another secret" })).status).toBe(200);
    expect(await until(() => visit(a, code, { cookie: unlock }), 200, 2_000)).toBeLessThan(FOLLOW_MS);
    expect((await putSmart(a, { password: null })).status).toBe(200);
  });

  test("click limit across instances: at most N per instance before the counts meet, exact once they have", async () => {
    const N = 5;
    expect((await putSmart(a, { maxClicks: N, fallbackUrl: "https://example.com/over" })).status).toBe(200);
    await until(() => fetch(`${b.base}/api/links/${id}/smart`, { headers: { cookie } }).then(async (r) => ((await r.json()) as { maxClicks: number }).maxClicks), N, 2_000);
    // The link already had clicks from the tests above, on both instances: once both writers have
    // written them and each instance has read the counts back, the limit goes on from them.
    await Bun.sleep(WRITE_WITHIN_MS + SMART_SYNC_MS + 500);
    const before = ((await (await fetch(`${a.base}/api/links/${id}/smart`, { headers: { cookie } })).json()) as { clicks: number }).clicks;
    const left = Math.max(0, N - before);
    // Both instances at once, before either has the other's clicks: each sends at most what was left.
    const both = await Promise.all([...Array(left + 3)].flatMap(() => [visit(a, code), visit(b, code)]));
    const reached = both.filter((l) => l === "https://example.com/plain").length;
    expect(reached).toBeGreaterThanOrEqual(left);
    expect(reached).toBeLessThanOrEqual(2 * left);
    // Once the click writers have written and the counts are read back, every instance answers the fallback.
    await Bun.sleep(WRITE_WITHIN_MS + SMART_SYNC_MS + 500);
    for (const on of [a, b]) expect(await visit(on, code)).toBe("https://example.com/over");
  });
});

describe("a clicks reset on one instance is seen by the other", () => {
  test(`reset on A → B serves the destination again within ${FOLLOW_MS} ms`, async () => {
    const cookie = await signUp(a, "resettwin");
    const code = "twin-reset";
    const made = await fetch(`${a.base}/api/pic-drift-links`, {
      method: "POST",
      ...json({ originalUrl: "https://example.com/reset-dest", title: "Reset", shortCode: code, smart: { maxClicks: 2, fallbackUrl: "https://example.com/reset-over" } }, cookie),
    });
    expect(made.status).toBe(201);
    const { id } = (await made.json()) as { id: number };
    await until(() => visit(b, code), "https://example.com/reset-dest", 2_000);
    // B spends the limit itself (its own count), then its clicks are written, so none arrives after the reset.
    await until(() => visit(b, code), "https://example.com/reset-over", 2_000);
    await Bun.sleep(WRITE_WITHIN_MS + SMART_SYNC_MS + 500);
    expect(await visit(b, code)).toBe("https://example.com/reset-over");
    const reset = await fetch(`${a.base}/api/pic-drift-links/${id}/reset-clicks`, { method: "POST", headers: { cookie } });
    expect(reset.status).toBe(200);
    // B's count restarts from the database's (zero): the destination again, within the bound.
    expect(await until(() => visit(b, code), "https://example.com/reset-dest", 2_000)).toBeLessThan(FOLLOW_MS);
  });
});
