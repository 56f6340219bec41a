// Graceful stop against a real process: whatever clients hold open, SIGTERM ends it within
// 5 s, after answering the requests already received and flushing the buffered clicks; on
// PostgreSQL (TEST_BACKEND=postgres) it also closes every connection it opened.
import { expect, test } from "bun:test";
import { SQL } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../db/connect";
import { PASSWORD, onPostgres, testCluster, testDatabaseUrl } from "../test/helpers";
import { freePort } from "../test/instances";

test("SIGTERM with 60 half-sent requests and idle keep-alives: requests received are answered, clicks flushed, exit 0 within 5 s", async () => {
  const dir = mkdtempSync(join(tmpdir(), "threadlink-stop-"));
  // A port the kernel says is free: a random one collided now and then with a client's port
  // (the server then exits at once, and the test waited out its minute).
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const databaseUrl = onPostgres ? await testDatabaseUrl() : null;
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "../main.ts"), "serve"], {
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dir, PUBLIC_URL: base, LOG_LEVEL: "error", ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
    stdout: "ignore",
    stderr: "ignore",
  });
  const sockets: Bun.Socket[] = [];
  try {
    // Running from source, the server bundles the web app before it listens.
    for (let i = 0; ; i++) {
      if ((await fetch(`${base}/api/health`).catch(() => null))?.ok) break;
      // An exit (a port taken after all) is told at once, not after the minute.
      if (proc.exitCode !== null) throw new Error(`the server exited at start (${proc.exitCode})`);
      if (i > 600) throw new Error("the server did not start");
      await Bun.sleep(100);
    }
    const reg = await fetch(`${base}/api/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "stopper", password: PASSWORD, email: "stopper@example.test" }),
    });
    expect(reg.status).toBe(201);
    const cookie = reg.headers.get("set-cookie")!.split(";")[0]!;
    const made = await fetch(`${base}/api/links`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ originalUrl: "https://example.com/stop", title: "Stop", shortCode: "stopme" }),
    });
    expect(made.status).toBe(201);
    const linkId = ((await made.json()) as { id: number }).id;

    const open = async (text: string) => {
      const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {}, error() {}, close() {} } });
      socket.write(text);
      sockets.push(socket);
    };
    // Bodies promised and never sent, and header blocks never finished (slowloris).
    for (let i = 0; i < 50; i++) await open(`POST /api/login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"user`);
    for (let i = 0; i < 10; i++) await open(`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1`);
    // Keep-alive connections that finished a request and sit idle.
    for (let i = 0; i < 5; i++) await open(`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);

    // A click, buffered by the recorder when SIGTERM arrives.
    expect((await fetch(`${base}/stopme`, { redirect: "manual" })).status).toBe(302);
    // A request received but not complete when SIGTERM arrives (its body is still coming) is
    // answered. The connection serves a request first, so the server has surely taken it.
    let answer = "";
    const body = JSON.stringify({ name: "late body" });
    const slow = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data(_s, d) { answer += d.toString(); }, error() {}, close() {} } });
    sockets.push(slow);
    slow.write(`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    const answered = () => {
      const end = answer.indexOf("\r\n\r\n");
      return end >= 0 && answer.length - end - 4 >= Number(/content-length: *(\d+)/i.exec(answer)?.[1] ?? 0);
    };
    while (!answered()) await Bun.sleep(10);
    answer = "";
    slow.write(`POST /api/topics HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
    await Bun.sleep(50);

    const started = performance.now();
    proc.kill("SIGTERM");
    await Bun.sleep(300);
    slow.write(body.slice(5));
    const code = await proc.exited;
    const took = performance.now() - started;
    expect(code).toBe(0);
    // Before the bound: 31 s, held by the half-sent requests.
    expect(took).toBeLessThan(5000);
    expect(answer).toStartWith("HTTP/1.1 401");

    if (databaseUrl) {
      // Every connection the server opened (its pool, the click writer's, the listener) is
      // closed: a backend ends a moment after its client goes, so a second's grace.
      const name = new URL(databaseUrl).pathname.slice(1);
      const admin = new SQL({ url: (await testCluster()).adminUrl(), max: 1 });
      try {
        let open = -1;
        for (let i = 0; i < 20 && open !== 0; i++) {
          if (i) await Bun.sleep(50);
          open = (await admin`SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE datname = ${name}`)[0].n;
        }
        expect(open).toBe(0);
      } finally {
        await admin.close();
      }
    }
    const { db } = await openDatabase({ dataDir: dir, databaseUrl });
    try {
      expect(await db.get("SELECT COUNT(*) AS n FROM link_analytics WHERE link_id = ?", linkId)).toEqual({ n: 1 });
    } finally {
      await db.close();
    }
  } finally {
    for (const s of sockets) s.end();
    proc.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);
