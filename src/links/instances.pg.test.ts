// Two Threadlink processes on one PostgreSQL (a throwaway cluster, scripts/lib/pgcluster.ts):
// what one instance writes, the other follows within 100 ms (LISTEN/NOTIFY, src/links/follow.ts),
// and a session or an API key made on one works on the other. Real processes on loopback: the
// compiled binary when THREADLINK_BINARY names one, else src/main.ts run by this Bun.
// Run by scripts/test.sh's PostgreSQL section; without PostgreSQL these fail, they never skip.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { SQL } from "bun";
import { FOLLOW_MS, type Instance, json, signUp, startTwins, stopInstance, stopTwins, target, thirdInstance, type Twins } from "../test/instances";
import { MISS_LOOKUP_BURST, MISS_LOOKUPS_PER_S } from "./missLookup";

// A timed-out test has its child processes killed by bun test: the instances too, for every
// test after it. The bounds that matter are asserted inside each test.
setDefaultTimeout(30_000);

let twins: Twins;
let admin: SQL;
let a: Instance;
let b: Instance;

beforeAll(async () => {
  twins = await startTwins("instances");
  ({ admin, a, b } = twins);
}, 120_000);

afterAll(() => stopTwins(twins));

/**
 * Runs `write` on one instance and polls `code` on the other until it answers `want`; the
 * milliseconds from the write's response to the first right answer.
 */
async function followed(write: () => Promise<Response>, on: Instance, code: string, want: string | number, limitMs = 2_000) {
  const r = await write();
  expect(r.status).toBeLessThan(300);
  const t0 = performance.now();
  for (;;) {
    const got = await target(on, code);
    const ms = performance.now() - t0;
    if (got === want) return ms;
    if (ms > limitMs) throw new Error(`after ${Math.round(ms)} ms ${on.base}/${code} still answers ${got}, not ${want}`);
  }
}

describe("two instances on one database", () => {
  let cookie: string;
  beforeAll(async () => {
    cookie = await signUp(a, "twin");
  });

  test("a session made on A works on B; signing out on B ends it on A", async () => {
    const other = await signUp(a, "twin2");
    expect((await (await fetch(`${b.base}/api/user`, { headers: { cookie: other } })).json()).username).toBe("twin2");
    expect((await fetch(`${b.base}/api/logout`, { method: "POST", headers: { cookie: other } })).status).toBeLessThan(300);
    expect((await fetch(`${a.base}/api/user`, { headers: { cookie: other } })).status).toBe(401);
  });

  test("an API key made on A works on B, and revoked on B it stops on A", async () => {
    const made = await fetch(`${a.base}/api/api-keys`, { method: "POST", ...json({ name: "twin key", scope: "read" }, cookie) });
    expect(made.status).toBe(201);
    const { id, key } = (await made.json()) as { id: number; key: string };
    const bearer = { authorization: `Bearer ${key}` };
    expect((await fetch(`${b.base}/api/links`, { headers: bearer })).status).toBe(200);
    expect((await fetch(`${b.base}/api/api-keys/${id}`, { method: "DELETE", headers: { cookie } })).status).toBe(200);
    expect((await fetch(`${a.base}/api/links`, { headers: bearer })).status).toBe(401);
  });

  test(`create, edit, expiry and delete on A are followed by B within ${FOLLOW_MS} ms`, async () => {
    // Untimed first: B's first read of a link may open a new pool connection (authentication).
    const warm = await fetch(`${a.base}/api/links`, { method: "POST", ...json({ originalUrl: "https://example.com/warm", title: "Warm", shortCode: "warm" }, cookie) });
    await followed(async () => warm, b, "warm", "https://example.com/warm");
    const times: number[] = [];
    let id = 0;
    times.push(
      await followed(
        async () => {
          const r = await fetch(`${a.base}/api/links`, { method: "POST", ...json({ originalUrl: "https://example.com/one", title: "Twin", shortCode: "twin" }, cookie) });
          id = ((await r.clone().json()) as { id: number }).id;
          return r;
        },
        b,
        "twin",
        "https://example.com/one",
      ),
    );
    for (const n of [2, 3, 4, 5]) {
      const edit = { originalUrl: `https://example.com/${n}`, title: "Twin", description: "", expiresAt: null };
      times.push(await followed(() => fetch(`${a.base}/api/links/${id}`, { method: "PUT", ...json(edit, cookie) }), b, "twin", `https://example.com/${n}`));
    }
    // An expiry set on A: B knows it, and answers 410 once the time has passed.
    const soon = new Date(Date.now() + 1_000).toISOString();
    await fetch(`${a.base}/api/links/${id}`, { method: "PUT", ...json({ originalUrl: "https://example.com/5", title: "Twin", description: "", expiresAt: soon }, cookie) });
    await Bun.sleep(Date.parse(soon) - Date.now() + 20);
    expect(await target(b, "twin")).toBe(410);
    // Deleted on A: B's visitors get the unknown-link page.
    times.push(await followed(() => fetch(`${a.base}/api/links/${id}`, { method: "DELETE", headers: { cookie } }), b, "twin", 404));
    console.log(`propagation A → B: ${times.map((t) => t.toFixed(1)).join(", ")} ms`);
    for (const t of times) expect(t).toBeLessThan(FOLLOW_MS);
  });

  test(`a rename on A (Pic Drift links): B drops the old code and serves the new one within ${FOLLOW_MS} ms`, async () => {
    const r = await fetch(`${a.base}/api/pic-drift-links`, { method: "POST", ...json({ originalUrl: "https://example.com/pic", title: "Pic", shortCode: "pic-old" }, cookie) });
    expect(r.status).toBe(201);
    const { id } = (await r.json()) as { id: number };
    await followed(async () => new Response(null), b, "pic-old", "https://example.com/pic");
    const rename = { shortCode: "pic-new", originalUrl: "https://example.com/pic2", title: "Pic", description: "" };
    const ms = await followed(() => fetch(`${a.base}/api/pic-drift-links/${id}`, { method: "PUT", ...json(rename, cookie) }), b, "pic-new", "https://example.com/pic2");
    expect(ms).toBeLessThan(FOLLOW_MS);
    expect(await target(b, "pic-old")).toBe(404);
  });

  test("a click reset on A (Pic Drift links): B's clicks after it count from zero, and the analytics add up", async () => {
    const r = await fetch(`${a.base}/api/pic-drift-links`, { method: "POST", ...json({ originalUrl: "https://example.com/reset", title: "Reset", shortCode: "resetme" }, cookie) });
    const { id } = (await r.json()) as { id: number };
    await followed(async () => new Response(null), b, "resetme", "https://example.com/reset");
    const clicksOnB = async (n: number) => {
      for (let i = 0; i < n; i++) expect((await fetch(`${b.base}/resetme`, { redirect: "manual" })).status).toBe(302);
    };
    /** The count A reads, once B's click writer has written what it was given (≤ 300 ms). */
    const countIs = async (want: number) => {
      const t0 = performance.now();
      for (;;) {
        const list = (await (await fetch(`${a.base}/api/pic-drift-links`, { headers: { cookie } })).json()) as { id: number; clickCount: number }[];
        const view = list.find((l) => l.id === id)!;
        if (view.clickCount === want) return;
        if (performance.now() - t0 > 10_000) throw new Error(`the count stayed ${view.clickCount}, not ${want}`);
        await Bun.sleep(50);
      }
    };
    await clicksOnB(3);
    await countIs(3);
    expect((await fetch(`${a.base}/api/pic-drift-links/${id}/reset-clicks`, { method: "POST", headers: { cookie } })).status).toBe(200);
    await countIs(0);
    await clicksOnB(2);
    await countIs(2);
    const analytics = (await (await fetch(`${a.base}/api/pic-drift-links/${id}/analytics`, { headers: { cookie } })).json()) as { clickCount: number; clicks: unknown[]; timeline: { series: { count: number }[] } };
    expect(analytics.clickCount).toBe(2);
    expect(analytics.clicks.length).toBe(2);
    expect(analytics.timeline.series.reduce((n, d) => n + d.count, 0)).toBe(2);
  });

  test("a link written behind the app's back (another tool, a hand-run UPDATE) is followed by both", async () => {
    const r = await fetch(`${a.base}/api/links`, { method: "POST", ...json({ originalUrl: "https://example.com/hand", title: "Hand", shortCode: "byhand" }, cookie) });
    expect(r.status).toBe(201);
    await admin`UPDATE short_links SET original_url = 'https://example.com/by-sql' WHERE short_code = 'byhand'`;
    for (const on of [a, b]) await followed(async () => new Response(null), on, "byhand", "https://example.com/by-sql", FOLLOW_MS * 5);
  });

  test("the listening connections killed: both keep serving (never a 503), catch up on a change they missed within 1 s, health stale only meanwhile", async () => {
    const r = await fetch(`${a.base}/api/links`, { method: "POST", ...json({ originalUrl: "https://example.com/lost-1", title: "Lost", shortCode: "lost" }, cookie) });
    const { id } = (await r.json()) as { id: number };
    // Acknowledged once B has it too (follow.ts, barrier): no polling needed.
    expect(await target(b, "lost")).toBe("https://example.com/lost-1");
    const killed = await admin`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE query = 'LISTEN "threadlink_links"'`;
    // One listener per instance.
    expect(killed.length).toBe(2);
    // Written while no instance may listen: its notification may reach nobody.
    const edit = { originalUrl: "https://example.com/lost-2", title: "Lost", description: "", expiresAt: null };
    expect((await fetch(`${a.base}/api/links/${id}`, { method: "PUT", ...json(edit, cookie) })).status).toBe(200);
    const t0 = performance.now();
    for (const on of [a, b]) {
      const seen: (string | number)[] = [];
      const health = new Set<string>();
      for (;;) {
        const got = await target(on, "lost");
        const h = await fetch(`${on.base}/api/health`);
        health.add(`${h.status} ${((await h.json()) as { redirects: string }).redirects}`);
        if (seen.at(-1) !== got) seen.push(got);
        if (got === "https://example.com/lost-2") break;
        if (performance.now() - t0 > 1_000) throw new Error(`${on.base} did not catch up in 1 s: it answered ${seen.join(", ")}`);
        await Bun.sleep(5);
      }
      // The old destination at most until it caught up, never a 503.
      expect(seen.filter((s) => s !== "https://example.com/lost-1")).toEqual(["https://example.com/lost-2"]);
      // Health: 200 ok, or 503 stale while catching up with a database that answers.
      expect([...health].filter((h) => h !== "200 ok" && h !== "503 stale")).toEqual([]);
    }
    console.log(`both caught up ${Math.round(performance.now() - t0)} ms after the listeners were killed`);
    for (const on of [a, b]) {
      for (let n = 0; ; n++) {
        const h = (await (await fetch(`${on.base}/api/health`)).json()) as object;
        if ((h as { redirects: string }).redirects === "ok" || n > 100) {
          expect(h).toMatchObject({ status: "ok", redirects: "ok" });
          break;
        }
        await Bun.sleep(10);
      }
    }
    const next = { ...edit, originalUrl: "https://example.com/lost-3" };
    expect(await followed(() => fetch(`${a.base}/api/links/${id}`, { method: "PUT", ...json(next, cookie) }), b, "lost", "https://example.com/lost-3")).toBeLessThan(FOLLOW_MS);
  });

  test("each instance holds one listening connection", async () => {
    const rows = await admin`SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE query = 'LISTEN "threadlink_links"'`;
    expect(rows[0].n).toBe(2);
  });
});

/** The backends of every instance's listening connection. */
async function listeners() {
  return ((await admin`SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN "threadlink_links"'`) as { pid: number }[]).map((r) => r.pid);
}

/**
 * Scans of short_links so far (sequential or by index: the planner reads a small table whole),
 * once the backends' counts have reached the statistics (unchanged for 1.5 s).
 */
async function linkScans(db: SQL) {
  const read = async () => {
    const rows = (await db`SELECT (seq_scan + COALESCE(idx_scan, 0))::int AS n FROM pg_stat_user_tables WHERE relname = 'short_links'`) as { n: number }[];
    return rows[0]!.n;
  };
  let last = await read();
  for (let n = 0; n < 10; n++) {
    await Bun.sleep(1_500);
    const now = await read();
    if (now === last) return now;
    last = now;
  }
  return last;
}

describe("a code this instance does not know yet (issue 22: read-your-writes across instances)", () => {
  let cookie: string;
  beforeAll(async () => {
    cookie = await signUp(a, "miss");
  });

  test("created on A while every listener is paused: the very next redirect on B finds it in the database, though B had just answered 404 for it", async () => {
    expect(await target(b, "latecomer")).toBe(404);
    const pids = await listeners();
    expect(pids.length).toBe(2);
    for (const pid of pids) process.kill(pid, "SIGSTOP");
    try {
      const r = await fetch(`${a.base}/api/links`, { method: "POST", ...json({ originalUrl: "https://example.com/latecomer", title: "Late", shortCode: "latecomer" }, cookie) });
      expect(r.status).toBe(201);
      // B heard nothing (its listener is paused), and its 404 of a moment ago does not stand.
      expect(await target(b, "latecomer")).toBe("https://example.com/latecomer");
      // GET too (a click), and the unknown stays unknown.
      const got = await fetch(`${b.base}/latecomer`, { redirect: "manual" });
      expect([got.status, got.headers.get("location")]).toEqual([302, "https://example.com/latecomer"]);
      expect(await target(b, "never-made")).toBe(404);
    } finally {
      for (const pid of pids) process.kill(pid, "SIGCONT");
      await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid IN ${admin(pids)}`;
    }
    // Both listen again and catch up (follow.ts); the test after this one needs them healthy.
    for (const on of [a, b]) {
      for (let n = 0; ; n++) {
        const h = (await (await fetch(`${on.base}/api/health`)).json()) as { redirects: string };
        if (h.redirects === "ok") break;
        if (n > 200) throw new Error(`${on.base} did not catch up: ${JSON.stringify(h)}`);
        await Bun.sleep(25);
      }
    }
  });

  test("a flood of 10,000 random unknown codes reaches the database at a bounded rate", async () => {
    // On a database of its own, read once its instances have exited: the twins' background
    // reads are not counted, and every scan is (a backend's statistics reach
    // pg_stat_user_tables when it exits, or when idle, up to 10 s late). An instance's start-up
    // reads the table too: one start is measured first, on the database already migrated.
    const url = await twins.cluster.createDatabase("flood");
    const db = new SQL({ url: twins.cluster.adminUrl("flood"), max: 1 });
    await stopInstance(await thirdInstance(twins, url));
    const migrated = await linkScans(db);
    await stopInstance(await thirdInstance(twins, url));
    const startUp = (await linkScans(db)) - migrated;
    const c = await thirdInstance(twins, url);
    try {
      const t0 = performance.now();
      let answered404 = 0;
      let sent = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (sent < 10_000) {
            sent++;
            const code = `flood${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
            if ((await target(c, code)) === 404) answered404++;
          }
        }),
      );
      const seconds = (performance.now() - t0) / 1000;
      await stopInstance(c);
      const scans = (await linkScans(db)) - migrated - 2 * startUp;
      // The bucket is full when the flood starts, then refills at its rate (+1: timer slack).
      const bound = MISS_LOOKUP_BURST + Math.ceil(MISS_LOOKUPS_PER_S * seconds) + 1;
      console.log(`flood: 10,000 unknown codes in ${seconds.toFixed(1)} s, ${scans} lookups in the database (bound ${bound}; a start-up reads the table ${startUp} times)`);
      expect(answered404).toBe(10_000);
      // Some did ask (the limiter is not simply closed), none beyond the bucket's bound.
      expect(scans).toBeGreaterThan(MISS_LOOKUP_BURST);
      expect(scans).toBeLessThanOrEqual(bound);
    } finally {
      if (c.proc.exitCode === null) await stopInstance(c);
      await db.close();
    }
  });
});
