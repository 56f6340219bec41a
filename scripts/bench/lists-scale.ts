// Lists at any size (issue 21): one account with 1,000,000 links; a list page of 100 links with
// and without search, and peak RSS while 4 exports stream at once. Bounded (each phase a fixed
// number of requests), loopback only; not part of `npm test`.
//
//   node_modules/.bin/bun run scripts/bench/lists-scale.ts            # SQLite, then PostgreSQL
//   BENCH_BACKENDS=sqlite BENCH_LINKS=200000 node_modules/.bin/bun run scripts/bench/lists-scale.ts
//
// The server is the source (bun src/main.ts serve) unless BENCH_BINARY names a built binary.
// The links are written straight into the database (in the server's own schema: the triggers
// keep the search index and the totals, as they do for the API's writes); the list is read
// through HTTP like a browser does. Prints the ceiling first: the same client against a bare
// Bun.serve (scripts/bench/ceiling.ts), the least any request can cost on this machine.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { startCluster, type PgCluster } from "../lib/pgcluster";

const HOST = "127.0.0.1";
const LINKS = Number(process.env.BENCH_LINKS ?? 1_000_000);
const BACKENDS = (process.env.BENCH_BACKENDS ?? "sqlite,postgres").split(",");
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 40);
const binary = process.env.BENCH_BINARY;
const children: Bun.Subprocess[] = [];
process.on("exit", () => {
  for (const c of children) c.kill("SIGKILL");
});

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const ms = (x: number) => `${x.toFixed(2)} ms`;

function rssMb(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function healthy(port: number, limitMs = 120_000) {
  const t0 = performance.now();
  for (;;) {
    if ((await fetch(`http://${HOST}:${port}/api/health`).catch(() => null))?.ok) return performance.now() - t0;
    if (performance.now() - t0 > limitMs) throw new Error(`nothing healthy on port ${port}`);
    await Bun.sleep(50);
  }
}

/** p50/p99 of `n` sequential GETs (each body read whole). */
async function timeGets(url: string, headers: Record<string, string>, n = REQUESTS) {
  // Never follow a redirect: the ceiling answers 302 to a host outside this machine.
  const times: number[] = [];
  let bytes = 0;
  let status = 0;
  for (let i = 0; i < n + 3; i++) {
    const t0 = performance.now();
    // decompress: false, so a compressed answer is measured as it travels (Bun's fetch option).
    const r = await fetch(url, { headers, redirect: "manual", decompress: false } as RequestInit);
    const body = await r.arrayBuffer();
    const dt = performance.now() - t0;
    status = r.status;
    bytes = body.byteLength;
    if (i >= 3) times.push(dt); // the first three warm the statement caches
  }
  return { p50: pct(times, 50), p99: pct(times, 99), bytes, status };
}

async function ceiling() {
  const port = 3391 + Math.floor(Math.random() * 500);
  const p = Bun.spawn([process.execPath, "scripts/bench/ceiling.ts", String(port)], { stdout: "ignore", stderr: "inherit" });
  children.push(p);
  for (let i = 0; i < 100 && !(await fetch(`http://${HOST}:${port}/`, { redirect: "manual" }).catch(() => null)); i++) await Bun.sleep(20);
  const r = await timeGets(`http://${HOST}:${port}/`, {}, 200);
  p.kill();
  await p.exited;
  console.log(`ceiling (bare Bun.serve, same client, sequential): p50 ${ms(r.p50)}  p99 ${ms(r.p99)}`);
}

/** Link i: a title of three words of known frequency, a host of 50, a description on every 10th. */
const WORDS = { rare: "topic123", medium: "group7", broad: "example" };
async function fillSqlite(path: string, userId: number) {
  const db = new Database(path);
  db.exec("PRAGMA busy_timeout = 10000");
  const t0 = performance.now();
  const insert = db.prepare(
    `INSERT INTO short_links (user_id, tracker, short_code, original_url, title, description, created_at, updated_at) VALUES (?, 'main', ?, ?, ?, ?, ?, ?)`,
  );
  const base = Date.parse("2026-01-01T00:00:00Z");
  const BATCH = 20_000;
  for (let at = 0; at < LINKS; at += BATCH) {
    db.transaction(() => {
      for (let i = at; i < Math.min(LINKS, at + BATCH); i++) {
        const when = new Date(base + i * 1000).toISOString();
        insert.run(userId, `c${i.toString(16)}`, `https://shop${i % 50}.example.com/p/${i}`, `Item ${i} topic${i % 1000} group${i % 10}`, i % 10 === 0 ? `Seasonal campaign ${i % 100}` : null, when, when);
      }
    })();
  }
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  return performance.now() - t0;
}

async function fillPostgres(url: string, userId: number) {
  const sql = new SQL(url);
  const t0 = performance.now();
  const BATCH = 100_000;
  for (let at = 0; at < LINKS; at += BATCH) {
    await sql.unsafe(
      `INSERT INTO short_links (user_id, tracker, short_code, original_url, title, description, created_at, updated_at)
       SELECT $1, 'main', 'c' || to_hex(i), 'https://shop' || (i % 50) || '.example.com/p/' || i, 'Item ' || i || ' topic' || (i % 1000) || ' group' || (i % 10),
              CASE WHEN i % 10 = 0 THEN 'Seasonal campaign ' || (i % 100) END,
              to_char(timestamp '2026-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
              to_char(timestamp '2026-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
       FROM generate_series($2::int, $3::int) AS i`,
      [userId, at, Math.min(LINKS, at + BATCH) - 1],
    );
  }
  await sql.unsafe("VACUUM ANALYZE short_links");
  await sql.close();
  return performance.now() - t0;
}

async function run(backend: string, cluster: PgCluster | null) {
  const dir = mkdtempSync(join(tmpdir(), "threadlink-bench-lists-"));
  const port = 4600 + Math.floor(Math.random() * 300);
  const dbUrl = cluster ? await cluster.createDatabase() : null;
  const env: Record<string, string> = {
    HOST,
    PORT: String(port),
    DATA_DIR: dir,
    PUBLIC_URL: `http://${HOST}:${port}`,
    LOG_LEVEL: "warn",
    API_RATE_LIMIT: "0",
    ...(dbUrl ? { DATABASE_URL: dbUrl } : {}),
  };
  const start = () => {
    const p = Bun.spawn(binary ? [binary, "serve"] : [process.execPath, "src/main.ts", "serve"], { env: { ...process.env, ...env }, stdout: "ignore", stderr: "inherit" });
    children.push(p);
    return p;
  };
  let server = start();
  await healthy(port);
  const origin = `http://${HOST}:${port}`;
  const reg = await fetch(`${origin}/api/register`, {
    method: "POST",
    headers: { "content-type": "application/json", origin },
    body: JSON.stringify({ username: "bench", password: "correct horse battery", email: "bench@example.test" }),
  });
  if (reg.status !== 201) throw new Error(`register: ${reg.status} ${await reg.text()}`);
  const cookie = (reg.headers.get("set-cookie") ?? "").split(";")[0]!;
  const userId = ((await reg.json()) as { user: { id: number } }).user.id;
  // SQLite: the server is stopped while the links are written (one writer), then started on them.
  if (!dbUrl) {
    server.kill("SIGTERM");
    await server.exited;
  }
  const fillMs = dbUrl ? await fillPostgres(dbUrl, userId) : await fillSqlite(join(dir, "threadlink.db"), userId);
  console.log(`\n== ${backend}: ${LINKS.toLocaleString("en-US")} links for one user written in ${(fillMs / 1000).toFixed(1)} s`);
  if (!dbUrl) {
    const t0 = performance.now();
    server = start();
    await healthy(port);
    console.log(`start-up with them: ${(performance.now() - t0).toFixed(0)} ms`);
  }
  const headers = { cookie };
  const gz = { cookie, "accept-encoding": "gzip" };
  const first = await fetch(`${origin}/api/links?limit=100`, { headers });
  console.log(`total ${first.headers.get("x-total-count")}`);
  const deep = await (async () => {
    // A cursor deep in the list: 50 pages of 1,000 in.
    let cursor = "";
    for (let i = 0; i < 50; i++) cursor = (await fetch(`${origin}/api/links?limit=1000&cursor=${cursor}`, { headers })).headers.get("x-next-cursor") ?? "";
    return cursor;
  })();
  const cases: [string, string][] = [
    ["first page, newest", "?limit=100"],
    ["page 51 (cursor after 50,000)", `?limit=100&cursor=${deep}`],
    ["oldest", "?limit=100&sort=oldest"],
    ["title A→Z", "?limit=100&sort=title"],
    ["code A→Z", "?limit=100&sort=code"],
    [`search "${WORDS.rare}" (1,000 match)`, `?limit=100&q=${WORDS.rare}`],
    [`search "${WORDS.medium}" (10% match)`, `?limit=100&q=${WORDS.medium}`],
    [`search "${WORDS.broad}" (all match)`, `?limit=100&q=${WORDS.broad}`],
    ["search a code (c1e240)", "?limit=100&q=c1e240"],
    ["search nothing matches", "?limit=100&q=wombat"],
    ["status=active", "?limit=100&status=active"],
    ["most clicked (no index)", "?limit=100&sort=most"],
  ];
  for (const [label, q] of cases) {
    const n = label.includes("most") || label.includes("active") || label.includes("broad") || label.includes("medium") ? 5 : REQUESTS;
    const r = await timeGets(`${origin}/api/links${q}`, headers, n);
    const z = await timeGets(`${origin}/api/links${q}`, gz, 3);
    console.log(`${label.padEnd(38)} p50 ${ms(r.p50).padStart(10)}  p99 ${ms(r.p99).padStart(10)}  (${n} req)  ${(r.bytes / 1024).toFixed(1)} KB, gzip ${(z.bytes / 1024).toFixed(1)} KB  [${r.status}]`);
  }

  // One export of every link, and two more of the same user while it streams (refused: one
  // at a time per user). Four at once are measured below, by four users.
  const idle = rssMb(server.pid);
  let peak = idle;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, rssMb(server.pid));
      await Bun.sleep(25);
    }
  })();
  const t0 = performance.now();
  const one = async (h: Record<string, string>, fmt: string) => {
    const r = await fetch(`${origin}/api/links/export.${fmt}`, { headers: h });
    let bytes = 0;
    for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.byteLength;
    return { status: r.status, bytes };
  };
  const running = one(headers, "json");
  await Bun.sleep(200);
  const refused = await Promise.all([one(headers, "csv"), one(headers, "json")]);
  const single = await running;
  const singleMs = performance.now() - t0;
  sampling = false;
  await sampler;
  console.log(
    `export.json of ${LINKS.toLocaleString("en-US")} links: ${(single.bytes / 1048576).toFixed(0)} MB in ${(singleMs / 1000).toFixed(1)} s; RSS idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB (+${(peak - idle).toFixed(0)} MB); ` +
      `two more at once: ${refused.map((r) => r.status).join(", ")}`,
  );
  // Four exports at once: four users, the links split between them (each owns a quarter).
  if (!dbUrl) {
    server.kill("SIGTERM");
    await server.exited;
  }
  const sessions: string[] = [cookie];
  for (let i = 1; i < 4; i++) {
    if (!dbUrl && i === 1) {
      server = start();
      await healthy(port);
    }
    const r = await fetch(`${origin}/api/register`, {
      method: "POST",
      headers: { "content-type": "application/json", origin },
      body: JSON.stringify({ username: `bench${i}`, password: "correct horse battery", email: `bench${i}@example.test` }),
    });
    const id = ((await r.clone().json()) as { user: { id: number } }).user.id;
    sessions.push((r.headers.get("set-cookie") ?? "").split(";")[0]!);
    const move = `UPDATE short_links SET user_id = ${id} WHERE user_id = ${userId} AND id % 4 = ${i}`;
    if (dbUrl) {
      const sql = new SQL(dbUrl);
      await sql.unsafe(move);
      await sql.close();
    } else {
      const db = new Database(join(dir, "threadlink.db"));
      db.exec("PRAGMA busy_timeout = 10000");
      db.exec(move);
      db.close();
    }
  }
  const idle4 = rssMb(server.pid);
  let peak4 = idle4;
  sampling = true;
  const sampler4 = (async () => {
    while (sampling) {
      peak4 = Math.max(peak4, rssMb(server.pid));
      await Bun.sleep(25);
    }
  })();
  const t4 = performance.now();
  const four = await Promise.all(sessions.map((c, i) => one({ cookie: c }, i % 2 ? "csv" : "json")));
  sampling = false;
  await sampler4;
  console.log(
    `4 parallel exports (4 users, ~${(LINKS / 4).toLocaleString("en-US")} links each): ${four.map((r) => `${r.status} ${(r.bytes / 1048576).toFixed(0)} MB`).join(", ")} in ${((performance.now() - t4) / 1000).toFixed(1)} s; ` +
      `RSS idle ${idle4.toFixed(0)} MB, peak ${peak4.toFixed(0)} MB (+${(peak4 - idle4).toFixed(0)} MB)`,
  );
  server.kill("SIGTERM");
  await server.exited;
  rmSync(dir, { recursive: true, force: true });
}

await ceiling();
let cluster: PgCluster | null = null;
try {
  for (const backend of BACKENDS) {
    if (backend === "postgres") cluster ??= await startCluster();
    await run(backend, backend === "postgres" ? cluster : null);
  }
} finally {
  await cluster?.stop();
}
