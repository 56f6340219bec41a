// Attempt limits counted in the database (both backends): windows, all-or-none takes, refunds,
// the sweep, what the table holds, and two app instances on one database sharing the counts.
// The clock is injected; the routes' behaviour is in src/accounts/limits.test.ts.
import { afterAll, describe, expect, test } from "bun:test";
import { createApp } from "../app";
import { openDatabase } from "../db/connect";
import { PASSWORD, setup } from "../test/helpers";
import { attemptStore } from "./attemptStore";
import { hashToken } from "./auth";
import { LIMITS } from "./rateLimit";

const t = await setup();
// In the past: windows of the injected clock have ended for the real-time requests below.
const T0 = Date.parse("2020-01-01T00:00:00.000Z");
const MIN = 60_000;
const rows = () => t.database.all<{ key: string; attempts: number; window_ends_at: string }>("SELECT * FROM attempt_counts ORDER BY key");

describe("one limit", () => {
  const store = attemptStore(t.database);
  const max = LIMITS.loginPerAccountAddress.max;

  test("max slots in a window, then the wait until it ends; a refusal is not counted", async () => {
    for (let i = 0; i < max; i++) expect(await store.take([["loginPerAccountAddress", "ann|192.0.2.1"]], T0 + i * 1000)).toHaveProperty("slots");
    expect(await store.take([["loginPerAccountAddress", "ann|192.0.2.1"]], T0 + 10 * MIN)).toEqual({ waitMs: 5 * MIN });
    expect(await store.take([["loginPerAccountAddress", "ann|192.0.2.1"]], T0 + 14 * MIN)).toEqual({ waitMs: MIN });
    // Another subject and another limit have their own windows.
    expect(await store.take([["loginPerAccountAddress", "ann|192.0.2.2"]], T0 + 14 * MIN)).toHaveProperty("slots");
    expect(await store.take([["loginPerAccount", "ann|192.0.2.1"]], T0 + 14 * MIN)).toHaveProperty("slots");
    // The window ends 15 minutes after its first attempt; the count starts again.
    const next = await store.take([["loginPerAccountAddress", "ann|192.0.2.1"]], T0 + 15 * MIN);
    expect(next).toEqual({ slots: [{ key: expect.stringMatching(/^[0-9a-f]{64}$/), windowEndsAt: new Date(T0 + 30 * MIN).toISOString() }] });
  });

  test("a refund gives the slot back in its own window, never in a later one", async () => {
    const who: ["signupPerAddress", string] = ["signupPerAddress", "198.51.100.1"];
    const first = await store.take([who], T0);
    if (!("slots" in first)) throw new Error("refused");
    for (let i = 1; i < LIMITS.signupPerAddress.max; i++) await store.take([who], T0 + i);
    expect(await store.take([who], T0 + 100)).toHaveProperty("waitMs");
    await store.refund(first.slots);
    expect(await store.take([who], T0 + 200)).toHaveProperty("slots");
    // The window ended and a new one began: the old slot's refund changes nothing.
    await store.take([who], T0 + 60 * MIN);
    const before = await rows();
    await store.refund(first.slots);
    expect(await rows()).toEqual(before);
  });

  test("the table holds hashes, never an account name or an address", async () => {
    const text = JSON.stringify(await rows());
    for (const s of ["ann", "192.0.2", "198.51.100"]) expect(text).not.toContain(s);
  });

  test("ended windows are swept (at most once a minute per process)", async () => {
    const fresh = attemptStore(t.database);
    expect((await rows()).length).toBeGreaterThan(0);
    // Everything above ended by T0 + 2 h; the sweep runs before this take.
    await fresh.take([["inviteAcceptPerAddress", "203.0.113.1"]], T0 + 2 * 60 * MIN);
    expect((await rows()).map((r) => r.window_ends_at)).toEqual([new Date(T0 + 135 * MIN).toISOString()]);
  });
});

describe("several limits at once", () => {
  const store = attemptStore(t.database);
  const login = (address: string): [keyof typeof LIMITS, string][] => [
    ["loginPerAccountAddress", `bea|${address}`],
    ["loginPerAccount", "bea"],
    ["loginPerAddress", address],
  ];

  test("all or none: when one window is full, the others are not counted", async () => {
    for (let i = 0; i < LIMITS.loginPerAccountAddress.max; i++) expect(await store.take(login("192.0.2.9"), T0)).toHaveProperty("slots");
    const counts = await rows();
    expect(await store.take(login("192.0.2.9"), T0 + MIN)).toEqual({ waitMs: 14 * MIN });
    expect(await rows()).toEqual(counts);
  });

  test("the wait is the longest among the full windows", async () => {
    const store = attemptStore(t.database);
    const who: [keyof typeof LIMITS, string][] = [
      ["signupPerAddress", "198.51.100.20"],
      ["inviteAcceptPerAddress", "198.51.100.20"],
    ];
    for (let i = 0; i < LIMITS.inviteAcceptPerAddress.max; i++) await store.take([who[1]!], T0);
    for (let i = 0; i < LIMITS.signupPerAddress.max; i++) await store.take([who[0]!], T0);
    expect(await store.take(who, T0 + MIN)).toEqual({ waitMs: 59 * MIN });
  });

  test("60 parallel takes of three limits: exactly the smallest limit's slots are given", async () => {
    const store = attemptStore(t.database);
    const now = T0 + 3 * 60 * MIN;
    const results = await Promise.all(Array.from({ length: 60 }, () => store.take(login("192.0.2.77"), now)));
    expect(results.filter((r) => "slots" in r).length).toBe(LIMITS.loginPerAccountAddress.max);
    expect(results.filter((r) => "waitMs" in r).length).toBe(60 - LIMITS.loginPerAccountAddress.max);
  });
});

describe("two instances on one database", async () => {
  // A second app on the same database, as a second server process would open it.
  const second = await openDatabase(t.config);
  const other = await createApp({ db: second.db, config: t.config });
  afterAll(async () => {
    for (const hook of other.ctx.shutdownHooks) await hook();
    await second.db.close();
  });
  const servers = [t.app, other.app].map((app) => app.listen({ port: 0, hostname: "127.0.0.1" }));
  afterAll(() => {
    for (const s of servers) s.stop(true);
  });
  const login = (i: number, password: string, address: string) =>
    fetch(`http://127.0.0.1:${servers[i % 2]!.server!.port}/api/login`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": address },
      body: JSON.stringify({ username: "shared", password }),
    });

  test("wrong passwords on either instance count against one limit, and both read it", async () => {
    await t.signUp("shared");
    const rs = await Promise.all(Array.from({ length: 12 }, (_, i) => login(i, `wrong-${i}-guess`, "198.51.100.33")));
    const by = (status: number, i: number) => rs.filter((r, j) => j % 2 === i && r.status === status).length;
    expect(rs.filter((r) => r.status === 401).length).toBe(LIMITS.loginPerAccountAddress.max);
    expect(rs.filter((r) => r.status === 429).length).toBe(12 - LIMITS.loginPerAccountAddress.max);
    // Each instance answered some of the guesses: neither counted alone.
    expect(by(401, 0) + by(429, 0)).toBe(6);
    expect(by(401, 1) + by(429, 1)).toBe(6);
    expect((await login(0, PASSWORD, "198.51.100.33")).status).toBe(429);
    expect((await login(1, PASSWORD, "198.51.100.33")).status).toBe(429);
    // Both instances read one count: the account's, 5 misses; a sign-in from another address
    // on instance 1 takes a slot and gives it back.
    const account = () => t.database.get<{ attempts: number }>("SELECT attempts FROM attempt_counts WHERE key = ?", hashToken("loginPerAccount:shared"));
    expect(await account()).toEqual({ attempts: LIMITS.loginPerAccountAddress.max });
    expect((await login(1, PASSWORD, "198.51.100.34")).status).toBe(200);
    expect(await account()).toEqual({ attempts: LIMITS.loginPerAccountAddress.max });
  });
});
