// Hostile-input suite (issue #11), run by `npm test` against the compiled binary: starts it on
// 127.0.0.1 with a fresh data dir, sets up three users through the API, then sends a corpus
// of hostile requests built from the app's own route list (scripts/hostile/corpus.ts) while a
// worker keeps following a short link. Each request is one test: no 5xx, the required status,
// the one JSON error shape on /api, the security headers, ≤ 500 ms, ≤ ~50 ms of server CPU,
// ≤ 50 MB of extra memory.
// Then a few whole-run checks (also one test each): redirects stayed fast, memory stayed
// bounded, the victims' data reads back identical, no stack trace or long line was logged,
// the database is intact and the server still stops cleanly.
// Prints one line per failure and ends with "hostile: N passed, M failed".
// HOSTILE_BACKEND=postgres runs the binary with DATABASE_URL on a throwaway PostgreSQL cluster
// (scripts/lib/pgcluster.ts), and checks its indexes with amcheck instead of SQLite's check.
//
//   BINARY=dist/threadlink HOSTILE_PORT=4300 [HOSTILE_BACKEND=postgres] bun run scripts/hostile.ts
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildCorpus, isRedirectLane, type Case, type Expect, type Fixture, type Values } from "./hostile/corpus";
import { send, type RawResponse } from "./hostile/http";
import { appRoutes } from "./hostile/routes";
import { apiClient } from "./lib/apiClient";
import { type PgCluster, startCluster } from "./lib/pgcluster";
import { SQL } from "bun";
import { PASSWORD_HASH } from "../src/accounts/password";

const binary = resolve(process.env.BINARY ?? "dist/threadlink");
const port = Number(process.env.HOSTILE_PORT ?? 4300);
const base = `http://127.0.0.1:${port}`;
const MAX_MS = 500; // per request; #11's budget is ~50 ms of CPU, this leaves room for a busy CI box
const MAX_REQUEST_MB = 50; // #11: no request costs more than ~50 MB
// #11: ~50 ms of server CPU a request. Measured in 10 ms ticks, with one tick of slack for
// the server's own background work (the redirect probe, the click writer, GC).
const MAX_CPU_MS = 60;
// A sign-in or sign-up spends one argon2id hash at OWASP's floor by design (src/accounts/
// password.ts): on a machine of this kind that alone is 40–60 ms, so those routes may spend the
// same budget on top of one hash, as this machine measures it now (the median of five, in this
// process, in ticks of 10 ms rounded up). A route that hashed twice, or did anything heavy
// besides, still fails.
const HASHING = /^\/api\/(login|register|invites\/[^/]+\/accept)\b/;
const HASH_CPU_MS = await (async () => {
  const hash = await Bun.password.hash("a hostile-suite calibration", PASSWORD_HASH);
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const before = process.cpuUsage();
    await Bun.password.verify("not the password", hash);
    const used = process.cpuUsage(before);
    runs.push((used.user + used.system) / 1000);
  }
  return Math.ceil(runs.sort((a, b) => a - b)[2]! / 10) * 10;
})();
console.log(`hostile: one password hash (argon2id, m=${PASSWORD_HASH.memoryCost} KiB, t=${PASSWORD_HASH.timeCost}) costs ~${HASH_CPU_MS} ms of CPU on this machine`);
// The whole attack's peak over the server's RSS before it. Set at 100 MB for 1,271 requests to
// 91 routes (peak +56); the corpus is now ~2,450 requests to 155 routes, each route sent its
// megabyte bodies, and the peak reached +75 (SQLite) and +83 to +100 (PostgreSQL). About a third
// of that is garbage not yet collected: a full collection after the attack took RSS from 161 to
// 132 MB with 25 MB of live heap (docs/reliability.md, session 13). A leak of 30 KB a request
// (~75 MB over the corpus) fails it.
const MAX_GROWTH_MB = 150;
const PROBE_P99_MS = 50;
const PROBE_MAX_MS = 250;
// The suite must end in bounded time even against a server that stalls on every request
// (before #11's fixes a deep body took ~5 s): past this budget the rest of the corpus is
// counted as failed, not sent. HOSTILE_ONLY=<regex on group names> runs a part, for work on it.
const BUDGET_MS = Number(process.env.HOSTILE_BUDGET_S ?? 150) * 1000;
const ONLY = process.env.HOSTILE_ONLY ? new RegExp(process.env.HOSTILE_ONLY, "i") : null;
const REQUEST_TIMEOUT_MS = 5000;
/** API_RATE_LIMIT for the run: low, so the corpus's last group takes mallory's key past it. */
const KEY_LIMIT = 5;

if (!existsSync(binary)) {
  console.log(`hostile: no binary at ${binary} (build it first)`);
  console.log("hostile: 0 passed, 1 failed");
  process.exit(1);
}

// A server left over on the port would answer the health check and be attacked instead.
if (await fetch(`${base}/api/health`).then(() => true, () => false)) {
  console.log(`hostile: something already answers on port ${port} (HOSTILE_PORT); stop it first`);
  console.log("hostile: 0 passed, 1 failed");
  process.exit(1);
}

const onPostgres = process.env.HOSTILE_BACKEND === "postgres";
let cluster: PgCluster | null = null;
let databaseUrl: string | null = null;
if (onPostgres) {
  try {
    cluster = await startCluster();
    databaseUrl = await cluster.createDatabase("threadlink_hostile");
  } catch (e) {
    console.log(`hostile: no PostgreSQL cluster: ${e instanceof Error ? e.message : String(e)}`);
    console.log("hostile: 0 passed, 1 failed");
    await cluster?.stop();
    process.exit(1);
  }
}

const dir = mkdtempSync(join(tmpdir(), "threadlink-hostile-"));
const server = Bun.spawn([binary, "serve"], {
  cwd: dir,
  env: {
    PATH: process.env.PATH ?? "",
    DATA_DIR: join(dir, "data"),
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_URL: base,
    LOG_LEVEL: "info",
    API_RATE_LIMIT: String(KEY_LIMIT),
    // The corpus's anonymous requests all come from loopback, hundreds a minute: counted (the
    // limiter's cost is in every measurement) but never refused.
    API_ANON_RATE_LIMIT: "1000000",
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  },
  stdout: "pipe",
  stderr: "pipe",
});

// ---- the server's log, read as it comes: stack traces and unbounded lines are failures.
const log = { bytes: 0, lines: 0, stackLines: 0, unhandled: 0, longest: 0, samples: [] as string[] };
async function readLog(stream: ReadableStream<Uint8Array>) {
  const dec = new TextDecoder();
  let rest = "";
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    log.bytes += chunk.length;
    rest += dec.decode(chunk, { stream: true });
    const lines = rest.split("\n");
    rest = lines.pop()!;
    for (const line of lines) {
      log.lines++;
      log.longest = Math.max(log.longest, line.length);
      // A stack frame, printed raw ("    at f (file:1:2)") or inside a JSON string ("\n    at ").
      const frames = (line.match(/(^|\\n)\s+at \S/g) ?? []).length;
      if (frames || /unhandled error/i.test(line)) {
        log.stackLines += frames;
        if (/unhandled error/i.test(line)) log.unhandled++;
        if (log.samples.length < 5) log.samples.push(line.slice(0, 300));
      }
    }
  }
}
const logDone = Promise.all([readLog(server.stdout), readLog(server.stderr)]);

// ---- memory: VmRSS now, VmHWM (peak) since the last reset of the peak.
const status = () => readFileSync(`/proc/${server.pid}/status`, "utf8");
const kb = (field: string) => Number(status().match(new RegExp(`^${field}:\\s+(\\d+)`, "m"))?.[1] ?? 0);
/** The server's CPU time in ms (all threads), from /proc/<pid>/stat in clock ticks of 10 ms. */
const cpuMs = () => {
  const fields = readFileSync(`/proc/${server.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
/** Resets VmHWM to the current RSS (Linux: write 5 to clear_refs); false where not allowed. */
function resetPeak() {
  try {
    writeFileSync(`/proc/${server.pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

let passed = 0;
let failed = 0;
const failures: string[] = [];
function record(name: string, problem: string | null) {
  if (problem === null) passed++;
  else {
    failed++;
    failures.push(`  ✗ ${name}: ${problem}`);
  }
}
const short = (s: string) => (s.length > 110 ? `${s.slice(0, 100)}…(${s.length} chars)` : s);

const api = apiClient(base);
async function must(method: string, path: string, cookie: string | null, body: unknown, want: number) {
  const r = await api(method, path, cookie, body);
  if (r.status !== want) throw new Error(`setup: ${method} ${path} answered ${r.status} (wanted ${want}): ${r.text.slice(0, 200)}`);
  return r;
}

async function waitForHealth() {
  for (let i = 0; i < 150; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) return;
    } catch {
      /* not up yet */
    }
    await Bun.sleep(100);
  }
  throw new Error("the server did not become healthy in 15 s");
}

// ---- setup through the API: alice (the victim, instance owner), bob (alice's member), mallory (the attacker).
type Made = { cookie: string; username: string };
async function register(username: string): Promise<Made> {
  const r = await must("POST", "/api/register", null, { username, password: "correct horse battery", email: `${username}@example.test` }, 201);
  return { cookie: (r.headers.get("set-cookie") ?? "").split(";")[0]!, username };
}
async function ownThings(u: Made, topicName: string, access: string) {
  const topic = (await must("POST", "/api/topics", u.cookie, { name: topicName, accessType: access }, 201)).json;
  const title = (await must("POST", `/api/${u.username}/${topic.linkSlug}/titles`, u.cookie, { name: `${topicName} notes`, keyPhrase: "hello", notes: "n" }, 201)).json;
  await must("POST", `/api/${u.username}/${topic.linkSlug}/titles`, u.cookie, { name: `${topicName} notes`, keyPhrase: "second version" }, 201);
  const main = (await must("POST", "/api/links", u.cookie, { originalUrl: `https://example.com/${u.username}/main`, title: `${u.username} main`, description: "d" }, 201)).json;
  const brand = (await must("POST", "/api/pic-drift-links", u.cookie, { originalUrl: `https://example.com/${u.username}/brand`, title: `${u.username} brand` }, 201)).json;
  return { topic, title, main, brand };
}

async function setup(): Promise<Fixture> {
  const alice = await register("alice");
  const bob = await register("bob");
  const mallory = await register("mallory");
  const A = await ownThings(alice, "Alpha plans", "personal");
  const pub = (await must("POST", "/api/topics", alice.cookie, { name: "Public board", accessType: "public" }, 201)).json;
  await must("POST", `/api/alice/${pub.linkSlug}/titles`, alice.cookie, { name: "Public title" }, 201);
  const priv = (await must("POST", "/api/topics", alice.cookie, { name: "Secret diary", accessType: "private" }, 201)).json;
  await must("POST", `/api/alice/${priv.linkSlug}/titles`, alice.cookie, { name: "Secret title", notes: "do not read" }, 201);
  // Bob accepts alice's invite (so he is a member of her personal topics) and adds a title.
  const invite = (await must("POST", "/api/invites", alice.cookie, undefined, 201)).json;
  await must("POST", `/api/invites/${invite.code}/accept`, bob.cookie, undefined, 200);
  await must("POST", `/api/alice/${A.topic.linkSlug}/titles`, bob.cookie, { name: "Bob was here" }, 201);
  const unused = (await must("POST", "/api/invites", alice.cookie, undefined, 201)).json;
  await ownThings(bob, "Bob things", "personal");
  const M = await ownThings(mallory, "Mallory base", "personal");
  // Premium, so the attacker's many accepted topic names never meet the free plan's limit.
  await must("POST", "/api/subscription/upgrade", mallory.cookie, undefined, 200);
  const malInvite = (await must("POST", "/api/invites", mallory.cookie, undefined, 201)).json;
  const malKey = (await must("POST", "/api/api-keys", mallory.cookie, { name: "hostile script", scope: "read-write" }, 201)).json.key as string;
  // A click on alice's link, so her analytics are not empty.
  const click = await fetch(`${base}/${A.main.shortCode}`, { redirect: "manual" });
  if (click.status !== 302) throw new Error(`setup: alice's link answered ${click.status}`);
  const notes = (await must("GET", "/api/notifications", alice.cookie, undefined, 200)).json.notifications;
  const links = (await must("GET", "/api/pic-drift-links/?includeRoot=true", alice.cookie, undefined, 200)).json as { id: number; shortCode: string }[];
  const root = links.find((l) => l.shortCode === "root");
  if (!root || !notes.length) throw new Error("setup: alice should own the root link and have notifications");
  const values = (u: Made, x: typeof A, inviteCode: string, notificationId: number): Values => ({
    username: u.username,
    topicSlug: x.topic.linkSlug,
    topicId: x.topic.id,
    titleId: x.title.id,
    mainLinkId: x.main.id,
    brandLinkId: x.brand.id,
    shortCode: x.main.shortCode,
    inviteCode,
    notificationId,
  });
  return {
    port,
    origin: base,
    alice: { cookie: alice.cookie, values: values(alice, A, unused.code, notes[0].id), publicSlug: pub.linkSlug, privateSlug: priv.linkSlug, rootLinkId: root.id },
    bob: { cookie: bob.cookie },
    mallory: { cookie: mallory.cookie, values: values(mallory, M, malInvite.code, 999_999), apiKey: malKey },
    keyLimit: KEY_LIMIT,
  };
}

/** Everything a victim can read back; compared before and after the attack. */
async function snapshot(cookie: string, fx: Fixture) {
  const get = async (p: string) => {
    const r = await api("GET", p, cookie);
    return { status: r.status, body: r.json ?? r.text };
  };
  const out: Record<string, unknown> = {};
  for (const p of ["/api/user", "/api/topics", "/api/links", "/api/pic-drift-links/?includeRoot=true", "/api/notifications", "/api/shared-topics", "/api/sharing-users"]) out[p] = await get(p);
  const topics = ((out["/api/topics"] as { body: unknown }).body ?? []) as { linkSlug: string; username?: string }[];
  const me = ((out["/api/user"] as { body: { username: string } }).body ?? { username: "?" }).username;
  for (const t of Array.isArray(topics) ? topics : []) out[`titles ${t.linkSlug}`] = await get(`/api/${me}/${t.linkSlug}/titles`);
  out.invite = await get(`/api/invites/${fx.alice.values.inviteCode}`);
  out.analytics = await get(`/api/links/${fx.alice.values.mainLinkId}/analytics`);
  return out;
}

function statusOk(expect: Expect, s: number) {
  if (typeof expect === "number") return s === expect;
  if (Array.isArray(expect)) return expect.includes(s);
  if (expect === "4xx") return s >= 400 && s < 500;
  if (expect === "2xx") return s >= 200 && s < 300;
  if (expect === "2xx|4xx") return (s >= 200 && s < 300) || (s >= 400 && s < 500);
  return s > 0 && s < 500;
}

/** Why one answer falls short of what the case requires, or null. */
function judge(c: Case, r: RawResponse, peakMb: number, cpu = 0): string | null {
  // The HTTP parser may refuse a request it cannot frame by closing the connection.
  if (r.error === "connection closed without a response" && c.bare) return null;
  if (r.error) return r.error;
  const why: string[] = [];
  if (r.status >= 500) why.push(`answered ${r.status}`);
  else if (!statusOk(c.expect, r.status)) why.push(`answered ${r.status}, wanted ${c.expect}`);
  const path = c.req.target.split("?")[0]!;
  const wantsJson = c.json ?? (path.startsWith("/api/") && !isRedirectLane(path));
  const fromServerItself = c.bare && !r.headers.has("x-content-type-options");
  if (wantsJson && r.status >= 400 && !fromServerItself) {
    let shape = false;
    try {
      const e = JSON.parse(r.text).error;
      shape = typeof e?.code === "string" && typeof e?.message === "string" && e.message.length > 0;
    } catch {
      /* not JSON */
    }
    if (!shape) why.push(`error body is not {error:{code,message}}: ${short(r.text.replace(/\s+/g, " "))}`);
  }
  // #11: security headers on every response kind, stated once (not only on success).
  if (!fromServerItself) {
    const missing = ["x-content-type-options", "x-frame-options", "referrer-policy"].filter((h) => !r.headers.has(h));
    if (missing.length) why.push(`no ${missing.join(", ")}`);
  }
  if (r.ms > MAX_MS) why.push(`took ${r.ms.toFixed(0)} ms (limit ${MAX_MS})`);
  const cpuLimit = HASHING.test(c.req.target ?? "") ? MAX_CPU_MS + HASH_CPU_MS : MAX_CPU_MS;
  if (cpu > cpuLimit) why.push(`took ${cpu} ms of server CPU (limit ~${cpuLimit - 10}${cpuLimit > MAX_CPU_MS ? `: ~50 besides one password hash of ${HASH_CPU_MS} ms` : ""})`);
  if (peakMb > MAX_REQUEST_MB) why.push(`server memory rose ${peakMb.toFixed(0)} MB during it (limit ${MAX_REQUEST_MB})`);
  const extra = r.status > 0 && r.status < 500 ? c.check?.(r) : null;
  if (extra) why.push(extra);
  return why.length ? why.join("; ") : null;
}

const percentile = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

const started = performance.now();
let exitCode = 1;
try {
  await waitForHealth();
  const routes = await appRoutes();
  const fx = await setup();
  const corpus = buildCorpus(routes, fx).filter((c) => !ONLY || ONLY.test(c.group));
  const before = { alice: await snapshot(fx.alice.cookie, fx), bob: await snapshot(fx.bob.cookie, fx) };
  const publicOpensBefore = ((before.alice["/api/topics"] as { body: { linkSlug: string; clickCount: number }[] }).body.find((t) => t.linkSlug === fx.alice.publicSlug)?.clickCount) ?? 0;

  // The redirect probe: its own thread, following mallory's link for the whole attack.
  const probe = new Worker(new URL("./hostile/probe.ts", import.meta.url).href);
  const probeResult = new Promise<{ samples: number[]; starts: number[]; statuses: Record<string, number> }>((res) => {
    probe.onmessage = (e) => res(e.data);
  });
  probe.postMessage({ type: "start", url: `${base}/${fx.mallory.values.shortCode}`, intervalMs: 10 });

  // Fifty half-sent requests held open for the whole attack (half with headers cut short, half
  // with a body cut short): they must neither slow the corpus nor hold up the stop at the end.
  const held: { end(): void }[] = [];
  for (let i = 0; i < 50; i++) {
    const partial =
      i % 2
        ? `POST /api/login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"username":`
        : `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: `;
    const sock = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {}, error() {} } });
    sock.write(partial);
    held.push(sock);
  }

  Bun.gc(true);
  await Bun.sleep(300);
  const canResetPeak = resetPeak();
  const rssStart = kb("VmRSS");
  const logBytesStart = log.bytes;
  const byGroup = new Map<string, { n: number; failed: number }>();
  console.log(`hostile: ${routes.length} routes from the app, ${corpus.length} requests in the corpus; binary ${binary}`);

  let skipped = 0;
  let peakKb = rssStart;
  let peakLabel = "";
  const spans: { from: number; to: number; label: string }[] = [];
  const now = () => performance.timeOrigin + performance.now();
  for (const c of corpus) {
    if (performance.now() - started > BUDGET_MS) {
      skipped++;
      record(`[${c.group}] ${c.req.method} ${short(c.req.target || "(raw request)")}`, "not sent: the suite's time budget ran out");
      continue;
    }
    c.req.timeoutMs ??= REQUEST_TIMEOUT_MS;
    const rssBefore = kb("VmRSS");
    if (canResetPeak) resetPeak();
    const from = now();
    const cpuBefore = cpuMs();
    const r = await send(port, c.req);
    const cpu = cpuMs() - cpuBefore;
    spans.push({ from, to: now(), label: `[${c.group}] ${c.req.method} ${short(c.req.target || "(raw request)")}` });
    const hwm = canResetPeak ? kb("VmHWM") : kb("VmRSS");
    // Each request resets the peak, so the whole attack's peak is the highest of them.
    if (hwm > peakKb) peakLabel = `[${c.group}] ${c.req.method} ${short(c.req.target)}`;
    peakKb = Math.max(peakKb, hwm);
    const peakMb = canResetPeak ? (hwm - rssBefore) / 1024 : 0;
    const problem = judge(c, r, peakMb, cpu);
    if (process.env.HOSTILE_VERBOSE) console.log(`${r.status} ${r.ms.toFixed(1)} ms (${cpu} ms CPU) +${peakMb.toFixed(1)} MB [${c.group}] ${c.req.method} ${short(c.req.target)}`);
    record(`[${c.group}] ${c.req.method} ${short(c.req.target || "(raw request)")}`, problem);
    const g = byGroup.get(c.group) ?? { n: 0, failed: 0 };
    g.n++;
    if (problem) g.failed++;
    byGroup.set(c.group, g);
  }

  // Many at once: ten deep bodies in parallel must not stall each other or the redirects.
  const parallel = await Promise.all(
    Array.from({ length: 10 }, () =>
      send(port, { method: "POST", target: "/api/login", headers: [["Content-Type", "application/json"]], body: "[".repeat(20_000) + "]".repeat(20_000) }),
    ),
  );
  parallel.forEach((r, i) => record(`[10 deep bodies at once] POST /api/login #${i + 1}`, judge({ group: "parallel", req: { method: "POST", target: "/api/login" }, expect: "4xx" }, r, 0)));
  const sent = corpus.length + parallel.length;
  peakKb = Math.max(peakKb, canResetPeak ? kb("VmHWM") : kb("VmRSS"));
  const growthMb = (peakKb - rssStart) / 1024;
  const rssEnd = kb("VmRSS");
  const attackLogBytes = log.bytes - logBytesStart;

  probe.postMessage({ type: "stop" });
  const { samples, starts, statuses } = await probeResult;
  probe.terminate();

  // ---- whole-run checks
  const p50 = percentile(samples, 50);
  const p99 = percentile(samples, 99);
  const max = Math.max(...samples);
  const non302 = Object.entries(statuses).filter(([k]) => k !== "302");
  record(
    `redirects during the attack (${samples.length} followed): all 302, p99 ≤ ${PROBE_P99_MS} ms, max ≤ ${PROBE_MAX_MS} ms`,
    samples.length < 20
      ? `only ${samples.length} redirects were followed`
      : non302.length
        ? `answers other than 302: ${JSON.stringify(statuses)}`
        : p99 > PROBE_P99_MS || max > PROBE_MAX_MS
          ? `p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms`
          : null,
  );
  record(`server memory over the whole attack ≤ +${MAX_GROWTH_MB} MB`, growthMb > MAX_GROWTH_MB ? `peak was +${growthMb.toFixed(0)} MB over ${(rssStart / 1024).toFixed(0)} MB` : null);

  const after = { alice: await snapshot(fx.alice.cookie, fx), bob: await snapshot(fx.bob.cookie, fx) };
  // The one change the attack may make: mallory's repeated opens of alice's public topic count once.
  const afterTopics = (after.alice["/api/topics"] as { body: { linkSlug: string; clickCount: number }[] }).body;
  const opensAfter = Array.isArray(afterTopics) ? (afterTopics.find((t) => t.linkSlug === fx.alice.publicSlug)?.clickCount ?? -1) : -1;
  if (corpus.some((c) => c.group === "repeated topic open"))
    record("five opens of a public topic by one visitor count once", opensAfter === publicOpensBefore + 1 ? null : `open count went from ${publicOpensBefore} to ${opensAfter}`);
  // Apart from that count (checked just above), everything must read back byte for byte.
  const same = (v: unknown) =>
    JSON.stringify(v, function (this: Record<string, unknown>, key, value) {
      return key === "clickCount" && this.linkSlug === fx.alice.publicSlug ? undefined : value;
    });
  for (const who of ["alice", "bob"] as const) {
    const diffs = Object.keys(before[who]).filter((k) => same(before[who][k]) !== same(after[who][k]));
    record(`${who}'s data reads back unchanged`, diffs.length ? `changed: ${diffs.map((k) => `${k} ${short(JSON.stringify(after[who][k]))}`).join(" | ")}` : null);
  }

  // A clean stop with the attack just over (#11: within 5 s whatever the clients did).
  const stopAt = performance.now();
  server.kill("SIGTERM");
  const code = await Promise.race([server.exited, Bun.sleep(5000).then(() => "still running after 5 s")]);
  const stopMs = performance.now() - stopAt;
  record("SIGTERM after the attack, 50 half-sent requests still open: exit 0 within 5 s", code === 0 ? null : `exit ${code}`);
  for (const sock of held) sock.end();
  if (code !== 0) server.kill("SIGKILL");
  await Promise.race([logDone, Bun.sleep(2000)]);

  record(
    "no stack traces or unhandled errors in the server's log",
    log.stackLines || log.unhandled ? `${log.stackLines} stack frames, ${log.unhandled} 'unhandled error' lines, e.g. ${log.samples.map((s) => short(s)).join(" / ")}` : null,
  );
  // "Logged at most as one short line (rate-limited)": ≤ 300 bytes a request on average, no line over 2 KB.
  record(
    "the log stays short under attack",
    attackLogBytes > 300 * sent || log.longest > 2048 ? `${attackLogBytes} bytes logged for ${sent} requests; longest line ${log.longest} chars` : null,
  );
  if (cluster) {
    // PostgreSQL's own check of every B-tree index against its table (amcheck, in Debian's
    // server package): a superuser connection, as an operator would run it.
    const admin = new SQL({ url: cluster.adminUrl("threadlink_hostile"), max: 1 });
    let problem: string | null = null;
    try {
      await admin`CREATE EXTENSION IF NOT EXISTS amcheck`;
      const indexes = await admin`SELECT c.relname AS name, bt_index_check(c.oid, true) IS NULL AS ok FROM pg_index i
        JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE a.amname = 'btree' AND n.nspname = 'public'`;
      if (indexes.length === 0) problem = "no index was checked";
    } catch (e) {
      problem = e instanceof Error ? e.message : String(e);
    } finally {
      await admin.close();
    }
    record("amcheck (bt_index_check with heap) after the attack", problem);
  } else {
    const db = new Database(join(dir, "data", "threadlink.db"), { readonly: true });
    const integrity = (db.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
    db.close();
    record("PRAGMA integrity_check after the attack", integrity === "ok" ? null : integrity);
  }

  console.log(`hostile: sent ${sent} hostile requests (${byGroup.size + 1} groups) to ${routes.length} routes on ${onPostgres ? "PostgreSQL" : "SQLite"} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  for (const [g, { n, failed: f }] of byGroup) if (f) console.log(`  ${g}: ${f} of ${n} fell short`);
  console.log(
    `hostile: redirects during the attack: ${samples.length} followed, ${JSON.stringify(statuses)}, p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms`,
  );
  console.log(`hostile: server RSS ${(rssStart / 1024).toFixed(0)} MB before, ${(rssEnd / 1024).toFixed(0)} MB after, peak +${growthMb.toFixed(0)} MB (during ${peakLabel}); ${attackLogBytes} bytes of log; stopped in ${stopMs.toFixed(0)} ms`);
  if (skipped) console.log(`hostile: ${skipped} requests not sent: the ${BUDGET_MS / 1000} s budget ran out`);
  // Which attacks the slow redirects ran into: what holds the server's thread.
  const blame = new Map<string, number>();
  samples.forEach((ms, i) => {
    if (ms <= PROBE_P99_MS) return;
    for (const s of spans) if (s.from < starts[i]! + ms && s.to > starts[i]!) blame.set(s.label, (blame.get(s.label) ?? 0) + 1);
  });
  for (const [label, n] of [...blame].sort((x, y) => y[1] - x[1]).slice(0, 8)) console.log(`  a redirect over ${PROBE_P99_MS} ms overlapped ${label} (${n}×)`);
  const fellShort = failures.filter((f) => f.includes("] ")).length;
  console.log(`hostile: ${fellShort} of ${sent} requests fell short${failures.length ? ":" : ""}`);
  for (const f of failures) console.log(f);
  exitCode = failed ? 1 : 0;
} catch (e) {
  record("the suite ran to the end", e instanceof Error ? (e.stack ?? e.message) : String(e));
  for (const f of failures) console.log(f);
} finally {
  if (server.exitCode === null) server.kill("SIGKILL");
  await server.exited;
  rmSync(dir, { recursive: true, force: true });
  await cluster?.stop();
}
console.log(`hostile: ${passed} passed, ${failed} failed`);
process.exit(exitCode);
