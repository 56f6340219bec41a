// The redirect map's follower (follow.ts) against a real PostgreSQL 15 (a throwaway cluster):
// what the trigger of migrations/pg/0009 announces reaches the map, in batches, in order; a
// lost or silent listening connection makes the map stale until it has listened again and read
// what changed meanwhile from link_changes (migrations/pg/0014), never the whole map.
// Run by scripts/test.sh's PostgreSQL section; without PostgreSQL these fail, they never skip.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { startCluster, type PgCluster } from "../../scripts/lib/pgcluster";
import { type Database, pgDatabase } from "../db/database";
import { migratePg, openPg } from "../db/pg";
import { type Follower, SILENT_MS, followLinks } from "./follow";
import { linksStore, type RedirectRow } from "./store";

let cluster: PgCluster;
let db: Database;
let writer: SQL;
let follower: Follower;
const map = new Map<string, RedirectRow>();
let reloads = 0;
let userId = 0;
let url = "";

beforeAll(async () => {
  cluster = await startCluster();
  url = await cluster.createDatabase("follow");
  const pool = openPg(url);
  await migratePg(pool);
  db = pgDatabase(pool);
  writer = new SQL({ url, max: 1 });
  const now = new Date().toISOString();
  [{ id: userId }] = await writer`INSERT INTO users (username, password_hash, email, created_at, updated_at) VALUES ('f', 'x', 'f@example.test', ${now}, ${now}) RETURNING id`;
  const reloadAll = async () => {
    reloads++;
    map.clear();
    for (const r of await db.all<RedirectRow>("SELECT id, short_code, original_url, active, expires_at FROM short_links")) map.set(r.short_code, r);
  };
  follower = await followLinks(url, linksStore(db), {
    put: (r) => map.set(r.short_code, r),
    drop: (code, id) => {
      if (map.get(code)?.id === id) map.delete(code);
    },
    reloadAll,
  });
}, 60_000);

afterAll(async () => {
  await follower?.stop();
  await writer?.close();
  await db?.close();
  await cluster?.stop();
}, 30_000);

const now = () => new Date().toISOString();
/** Waits until `check` holds (the map is updated by notifications, a few ms after a commit). */
async function until(check: () => boolean, ms = 2_000) {
  const t0 = performance.now();
  while (!check()) {
    if (performance.now() - t0 > ms) throw new Error("the map did not follow");
    await Bun.sleep(2);
  }
  await follower.settled();
}

test("an insert, an edit, a rename and a delete by another connection reach the map", async () => {
  const [{ id }] = await writer`INSERT INTO short_links (user_id, short_code, original_url, title, created_at, updated_at) VALUES (${userId}, 'f1', 'https://example.com/1', 't', ${now()}, ${now()}) RETURNING id`;
  await until(() => map.get("f1")?.original_url === "https://example.com/1");
  await writer`UPDATE short_links SET original_url = 'https://example.com/2', expires_at = '2030-01-01T00:00:00.000Z' WHERE id = ${id}`;
  await until(() => map.get("f1")?.expires_at === "2030-01-01T00:00:00.000Z");
  expect(map.get("f1")!.original_url).toBe("https://example.com/2");
  await writer`UPDATE short_links SET short_code = 'f1b' WHERE id = ${id}`;
  await until(() => map.has("f1b") && !map.has("f1"));
  await writer`DELETE FROM short_links WHERE id = ${id}`;
  await until(() => !map.has("f1b"));
  expect(follower.stale).toBe(false);
});

test("a code renamed away and taken by another link in one transaction ends up the other link's", async () => {
  const [{ id: a }] = await writer`INSERT INTO short_links (user_id, short_code, original_url, title, created_at, updated_at) VALUES (${userId}, 'swap', 'https://example.com/a', 't', ${now()}, ${now()}) RETURNING id`;
  await until(() => map.get("swap")?.id === a);
  const b = await writer.begin(async (tx) => {
    await tx`UPDATE short_links SET short_code = 'swapped' WHERE id = ${a}`;
    const [row] = await tx`INSERT INTO short_links (user_id, short_code, original_url, title, created_at, updated_at) VALUES (${userId}, 'swap', 'https://example.com/b', 't', ${now()}, ${now()}) RETURNING id`;
    return row.id as number;
  });
  await until(() => map.get("swap")?.id === b && map.get("swapped")?.id === a);
});

test("a rolled-back write announces nothing", async () => {
  await writer
    .begin(async (tx) => {
      await tx`INSERT INTO short_links (user_id, short_code, original_url, title, created_at, updated_at) VALUES (${userId}, 'never', 'https://example.com/n', 't', ${now()}, ${now()})`;
      throw new Error("roll back");
    })
    .catch(() => {});
  await writer`INSERT INTO short_links (user_id, short_code, original_url, title, created_at, updated_at) VALUES (${userId}, 'after', 'https://example.com/x', 't', ${now()}, ${now()})`;
  await until(() => map.has("after"));
  expect(map.has("never")).toBe(false);
});

test("2,500 links inserted in one statement (an import) all reach the map", async () => {
  await writer`INSERT INTO short_links (user_id, short_code, original_url, title, created_at, updated_at)
    SELECT ${userId}, 'bulk' || g, 'https://example.com/bulk/' || g, 't', ${now()}, ${now()} FROM generate_series(1, 2500) g`;
  await until(() => map.has("bulk2500") && map.has("bulk1"), 5_000);
  expect([...map.keys()].filter((k) => k.startsWith("bulk")).length).toBe(2500);
});

const listenerPids = async (admin: SQL) =>
  ((await admin`SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN "threadlink_links"' AND state = 'idle'`) as { pid: number }[]).map((r) => r.pid);

test("the listening connection killed: stale at once, then it catches up on the change made while nobody listened, without reading the whole map", async () => {
  const before = reloads;
  const admin = new SQL({ url: cluster.adminUrl("follow"), max: 1 });
  try {
    const killed = await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN "threadlink_links"'`;
    expect(killed.length).toBe(1);
    await until(() => follower.stale, 1_000);
    await writer`UPDATE short_links SET original_url = 'https://example.com/missed' WHERE short_code = 'after'`;
    const t0 = performance.now();
    await until(() => !follower.stale, 3_000);
    console.log(`caught up ${Math.round(performance.now() - t0)} ms after the missed write`);
    expect(reloads).toBe(before);
    expect(map.get("after")!.original_url).toBe("https://example.com/missed");
    // And it follows again.
    await writer`UPDATE short_links SET original_url = 'https://example.com/again' WHERE short_code = 'after'`;
    await until(() => map.get("after")?.original_url === "https://example.com/again");
  } finally {
    await admin.close();
  }
});

test("a silent listening connection (its backend paused): stale within a few seconds, then caught up, including a transaction open since before", async () => {
  const admin = new SQL({ url: cluster.adminUrl("follow"), max: 1 });
  const long = new SQL({ url: cluster.adminUrl("follow"), max: 1 });
  const [pid] = await listenerPids(admin);
  try {
    // A transaction that began long before and commits while nobody hears it: the watermark
    // (a snapshot's xmin) never passes it, so the catch-up reads it.
    let commit!: () => void;
    const committing = new Promise<void>((resolve) => (commit = resolve));
    const done = long.begin(async (tx) => {
      await tx`UPDATE short_links SET original_url = 'https://example.com/long' WHERE short_code = 'swap'`;
      await committing;
    });
    await Bun.sleep(2_500);
    process.kill(pid!, "SIGSTOP");
    const t0 = performance.now();
    commit();
    await done;
    await writer`UPDATE short_links SET original_url = 'https://example.com/paused' WHERE short_code = 'after'`;
    await until(() => follower.stale, 6_000);
    const detected = performance.now() - t0;
    await until(() => !follower.stale, 3_000);
    const caughtUp = performance.now() - t0;
    console.log(`silent listener: stale after ${Math.round(detected)} ms, caught up after ${Math.round(caughtUp)} ms`);
    expect(detected).toBeLessThan(5_000);
    expect(map.get("after")!.original_url).toBe("https://example.com/paused");
    expect(map.get("swap")!.original_url).toBe("https://example.com/long");
    // The new connection follows.
    await writer`UPDATE short_links SET original_url = 'https://example.com/anew' WHERE short_code = 'after'`;
    await until(() => map.get("after")?.original_url === "https://example.com/anew");
  } finally {
    process.kill(pid!, "SIGCONT");
    await long.close();
    await admin`SELECT pg_terminate_backend(${pid})`.catch(() => {});
    await admin.close();
  }
}, 20_000);

test("heartbeats that commit seconds late (every pooled connection busy on reports) do not call the map stale", async () => {
  const store = linksStore(db);
  let delay = 0;
  let stopping = false;
  // A heartbeat still sleeping when the follower stops is never sent: sent after its goodbye, it
  // made the next test's follower count this stopped instance as a peer to wait for (a barrier
  // of 1 s, not 0). The goodbye itself goes.
  const slow = {
    ...store,
    pulse: async (channel: string, payload: string) => {
      if (delay) await Bun.sleep(delay);
      if (stopping && !payload.includes('"bye"')) throw new Error("this follower has stopped");
      return store.pulse(channel, payload);
    },
  };
  const seen = new Map<string, RedirectRow>();
  const late = await followLinks(url, slow, { put: (r) => seen.set(r.short_code, r), drop: () => {}, reloadAll: async () => {} });
  try {
    delay = SILENT_MS + 1_500;
    let everStale = false;
    const t0 = performance.now();
    while (performance.now() - t0 < 2 * SILENT_MS + 1_500) {
      everStale ||= late.stale;
      await Bun.sleep(20);
    }
    expect(everStale).toBe(false);
    // Still following: a change reaches it.
    delay = 0;
    await writer`UPDATE short_links SET original_url = 'https://example.com/late' WHERE short_code = 'after'`;
    const t1 = performance.now();
    while (seen.get("after")?.original_url !== "https://example.com/late") {
      if (performance.now() - t1 > 2_000) throw new Error("the late follower did not follow");
      await Bun.sleep(5);
    }
  } finally {
    delay = 0;
    stopping = true;
    await late.stop();
  }
}, 30_000);

test("a barrier with no other instance resolves once this follower has seen its own sync", async () => {
  const t0 = performance.now();
  await follower.barrier();
  expect(performance.now() - t0).toBeLessThan(500);
});

test("a change committed while the first map loads is in the map the follower resolves with", async () => {
  const [{ id }] = await writer`INSERT INTO short_links (user_id, short_code, original_url, title, created_at, updated_at) VALUES (${userId}, 'during', 'https://example.com/before', 't', ${now()}, ${now()}) RETURNING id`;
  // Like service.ts: a new map is read and then replaces the one in use, which the follower's
  // puts write into. The edit commits after its row was read, and is notified before the swap.
  let current = new Map<string, RedirectRow>();
  const second = await followLinks(url, linksStore(db), {
    put: (r) => current.set(r.short_code, r),
    drop: (code, linkId) => {
      if (current.get(code)?.id === linkId) current.delete(code);
    },
    reloadAll: async () => {
      const next = new Map<string, RedirectRow>();
      for (const r of await db.all<RedirectRow>("SELECT id, short_code, original_url, active, expires_at FROM short_links")) next.set(r.short_code, r);
      await writer`UPDATE short_links SET original_url = 'https://example.com/after' WHERE id = ${id}`;
      await Bun.sleep(300);
      current = next;
    },
  });
  try {
    expect(current.get("during")?.original_url).toBe("https://example.com/after");
    expect(second.stale).toBe(false);
  } finally {
    await second.stop();
  }
}, 30_000);

test("an update of columns no redirect reads (title, description, owner) announces nothing; one of the destination does", async () => {
  const [{ id }] = await writer`INSERT INTO short_links (user_id, short_code, original_url, title, created_at, updated_at) VALUES (${userId}, 'quiet', 'https://example.com/q', 't', ${now()}, ${now()}) RETURNING id`;
  await until(() => map.has("quiet"));
  const changes = async () => Number((await writer`SELECT COUNT(*)::int AS n FROM link_changes WHERE link_id = ${id}`)[0].n);
  const before = await changes();
  let puts = 0;
  const counted = await followLinks(url, linksStore(db), { put: (r) => void (r.id === id && puts++), drop: () => {}, reloadAll: async () => {} });
  try {
    const [{ id: other }] = await writer`INSERT INTO users (username, password_hash, email, created_at, updated_at) VALUES ('f2', 'x', 'f2@example.test', ${now()}, ${now()}) RETURNING id`;
    await writer`UPDATE short_links SET title = 'new title', description = 'd', updated_at = ${now()} WHERE id = ${id}`;
    await writer`UPDATE short_links SET user_id = ${other} WHERE id = ${id}`;
    await writer`UPDATE short_links SET user_id = ${userId} WHERE id = ${id}`;
    await Bun.sleep(200);
    await counted.settled();
    expect(await changes()).toBe(before);
    expect(puts).toBe(0);
    await writer`UPDATE short_links SET original_url = 'https://example.com/q2' WHERE id = ${id}`;
    await until(() => map.get("quiet")?.original_url === "https://example.com/q2");
    await counted.settled();
    expect(await changes()).toBe(before + 1);
    expect(puts).toBe(1);
  } finally {
    await counted.stop();
  }
}, 30_000);

test("a first read of the map that fails fails the follower's start, and leaves nothing listening", async () => {
  const admin = new SQL({ url: cluster.adminUrl("follow"), max: 1 });
  try {
    const before = (await listenerPids(admin)).length;
    const failing = followLinks(url, linksStore(db), {
      put: () => {},
      drop: () => {},
      reloadAll: async () => {
        throw new Error("the database went away mid-read");
      },
    });
    await expect(failing).rejects.toThrow("the database went away mid-read");
    const t0 = performance.now();
    while ((await listenerPids(admin)).length > before && performance.now() - t0 < 2_000) await Bun.sleep(20);
    expect((await listenerPids(admin)).length).toBe(before);
  } finally {
    await admin.close();
  }
}, 30_000);

test("started from a snapshot's watermark: only the changes since are read; a watermark ahead of the database (a restore) or over 12 h old reads the whole map", async () => {
  const store = linksStore(db);
  const start = async (from: { xmin: string; at: number }) => {
    const seen = new Map<string, RedirectRow>();
    let whole = 0;
    const f = await followLinks(
      url,
      store,
      {
        put: (r) => seen.set(r.short_code, r),
        drop: (code) => seen.delete(code),
        reloadAll: async () => {
          whole++;
        },
      },
      from,
    );
    await f.stop();
    return { seen, whole };
  };
  const mark = await store.pulse("threadlink_test_unheard", "");
  await writer`INSERT INTO short_links (user_id, short_code, original_url, title, created_at, updated_at) VALUES (${userId}, 'snap-since', 'https://example.com/since', 't', ${now()}, ${now()})`;

  const since = await start(mark);
  expect(since.whole).toBe(0);
  expect(since.seen.get("snap-since")?.original_url).toBe("https://example.com/since");

  const ahead = await start({ xmin: String(BigInt(mark.xmin) + 1_000_000n), at: mark.at });
  expect(ahead.whole).toBe(1);
  expect(ahead.seen.size).toBe(0);

  const old = await start({ xmin: mark.xmin, at: mark.at - 13 * 3_600_000 });
  expect(old.whole).toBe(1);
  expect(old.seen.size).toBe(0);
}, 30_000);
