// Binary smoke test: copy dist/threadlink to an empty temp folder, start it there and check
// it serves the whole shell from inside itself. Prints "smoke: N passed, M failed".
// SMOKE_BACKEND=postgres runs the same checks with DATABASE_URL on a throwaway PostgreSQL
// cluster (scripts/lib/pgcluster.ts): the server and the CLI on it, nothing written to SQLite.
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { type PgCluster, startCluster } from "./lib/pgcluster";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const binary = resolve(process.env.BINARY ?? "dist/threadlink");
const port = Number(process.env.SMOKE_PORT ?? 3931);
const base = `http://127.0.0.1:${port}`;
/** API_RATE_LIMIT for this run: low, so the API walkthrough can reach it in a few requests. */
const KEY_LIMIT = 15;
const dir = mkdtempSync(join(tmpdir(), "threadlink-smoke-"));
const exe = join(dir, "threadlink");
copyFileSync(binary, exe);

const onPostgres = process.env.SMOKE_BACKEND === "postgres";
let cluster: PgCluster | null = null;
/** DATABASE_URL for the server and every CLI run, on PostgreSQL. */
const backend: Record<string, string> = {};
if (onPostgres) {
  try {
    cluster = await startCluster();
    backend.DATABASE_URL = await cluster.createDatabase("threadlink_smoke");
  } catch (e) {
    console.log(`  ✗ a PostgreSQL cluster to run on: ${e instanceof Error ? e.message : e}`);
    console.log("smoke: 0 passed, 1 failed");
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
    process.exit(1);
  }
}
/** One number from the app's database, read behind the server's back. */
async function scalar(query: string): Promise<number> {
  if (cluster) {
    const admin = new SQL({ url: cluster.adminUrl("threadlink_smoke"), max: 1 });
    try {
      return Number(Object.values((await admin.unsafe(query))[0])[0]);
    } finally {
      await admin.close();
    }
  }
  const db = new Database(join(dir, "data", "threadlink.db"), { readonly: true });
  try {
    return Number(Object.values(db.query(query).get() as Record<string, unknown>)[0]);
  } finally {
    db.close();
  }
}

let passed = 0;
let failed = 0;
async function check(name: string, fn: () => Promise<void> | void) {
  try {
    await fn();
    passed++;
    console.log(`  ✓ ${name}`);
  } catch (e) {
    failed++;
    console.log(`  ✗ ${name}: ${e instanceof Error ? e.message : e}`);
  }
}
function assert(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new Error(msg);
}

const run = (args: string[], env: Record<string, string> = {}) =>
  Bun.spawnSync([exe, ...args], { cwd: dir, env: { PATH: process.env.PATH ?? "", ...env } });

await check("--version and --help", () => {
  const v = run(["--version"]);
  assert(v.exitCode === 0 && /^\d+\.\d+\.\d+/.test(v.stdout.toString()), "no version");
  const h = run(["--help"]);
  assert(h.exitCode === 0 && h.stdout.toString().includes("backup FILE"), "help lacks commands");
});

await check("a bad configuration exits non-zero naming each variable", () => {
  const r = run(["serve"], { PORT: "nope", REGISTRATION: "sometimes", API_RATE_LIMIT: "lots" });
  const err = r.stderr.toString();
  assert(r.exitCode !== 0, "exited 0");
  assert(err.includes("PORT") && err.includes("REGISTRATION") && err.includes("API_RATE_LIMIT must be a whole number"), `message was: ${err}`);
});

// No DATA_DIR: the binary must create ./data next to where it is started.
const server = Bun.spawn([exe, "serve"], {
  cwd: dir,
  env: { PATH: process.env.PATH ?? "", PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: base, LOG_LEVEL: "warn", API_RATE_LIMIT: String(KEY_LIMIT), ...backend },
  stdout: "inherit",
  stderr: "inherit",
});

async function waitForHealth() {
  for (let i = 0; i < 100; i++) {
    try {
      const r = await fetch(`${base}/api/health`);
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    await Bun.sleep(100);
  }
  throw new Error("server did not become healthy");
}

await check(onPostgres ? "starts on PostgreSQL, writes no SQLite database, answers /api/health" : "starts in an empty folder, creates ./data, answers /api/health", async () => {
  await waitForHealth();
  const r = await fetch(`${base}/api/health`);
  const body = (await r.json()) as { status: string; db: string };
  assert(body.status === "ok" && body.db === "ok", JSON.stringify(body));
  if (onPostgres) assert(!existsSync(join(dir, "data", "threadlink.db")), "a data/threadlink.db was made beside PostgreSQL");
  else assert(existsSync(join(dir, "data", "threadlink.db")), "no data/threadlink.db");
  const hc = run(["healthcheck"], { PORT: String(port) });
  assert(hc.exitCode === 0, "healthcheck command failed while serving");
});

let cookie = "";
await check("register and login work", async () => {
  const reg = await fetch(`${base}/api/register`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ username: "smoke", password: "smoke-password", email: "smoke@example.test" }),
  });
  assert(reg.status === 201, `register ${reg.status}`);
  const login = await fetch(`${base}/api/login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ username: "smoke", password: "smoke-password" }),
  });
  assert(login.status === 200, `login ${login.status}`);
  cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
  const me = await fetch(`${base}/api/user`, { headers: { cookie } });
  assert(me.status === 200 && ((await me.json()) as { username: string }).username === "smoke", "user fetch failed");
});

await check("the app's HTML and hashed chunks come from the binary, with caching and gzip", async () => {
  const html = await (await fetch(`${base}/some/deep/page`)).text();
  assert(html.includes('<div id="root">'), "no app HTML");
  const chunks = [...html.matchAll(/(?:src|href)="(\/chunk-[a-z0-9]+\.(?:js|css))"/g)].map((m) => m[1]!);
  assert(chunks.length >= 2, `chunks: ${chunks}`);
  for (const c of chunks) {
    const r = await fetch(`${base}${c}`, { headers: { "accept-encoding": "gzip" } });
    assert(r.status === 200, `${c} → ${r.status}`);
    assert(r.headers.get("cache-control")?.includes("immutable"), `${c} lacks immutable caching`);
    assert(r.headers.get("content-encoding") === "gzip", `${c} not gzipped`);
  }
  const js = chunks.find((c) => c.endsWith(".js"))!;
  const text = await (await fetch(`${base}${js}`)).text();
  // The production React build's errors are codes ("Minified React error #…"); the
  // development build has none of those, and identifiers are minified away in both.
  assert(text.includes("Minified React error"), "not the production React build");
  assert(!text.includes("react-dom.development") && !text.includes("Download the React DevTools"), "development React build served");
});

await check("CLI: user create, set-plan and reset-password work beside the running server", async () => {
  const env = { DATA_DIR: join(dir, "data"), ...backend };
  const created = run(["user", "create", "cliuser", "cli@example.test"], { ...env, THREADLINK_PASSWORD: "cli-password-1" });
  assert(created.exitCode === 0, created.stderr.toString());
  const again = run(["user", "create", "cliuser", "other@example.test"], { ...env, THREADLINK_PASSWORD: "cli-password-1" });
  assert(again.exitCode !== 0 && again.stderr.toString().includes("already taken"), "duplicate user accepted");
  const login = async (password: string) =>
    fetch(`${base}/api/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username: "cliuser", password }) });
  const first = await login("cli-password-1");
  assert(first.status === 200, `login ${first.status}`);
  const session = (first.headers.get("set-cookie") ?? "").split(";")[0]!;
  const plan = run(["user", "set-plan", "cliuser", "premium", "30"], env);
  assert(plan.exitCode === 0, plan.stderr.toString());
  const me = (await (await fetch(`${base}/api/user`, { headers: { cookie: session } })).json()) as { subscriptionType: string };
  assert(me.subscriptionType === "premium", `plan is ${me.subscriptionType}`);
  const reset = run(["user", "reset-password", "cliuser"], { ...env, THREADLINK_PASSWORD: "cli-password-2" });
  assert(reset.exitCode === 0, reset.stderr.toString());
  assert((await fetch(`${base}/api/user`, { headers: { cookie: session } })).status === 401, "old session survived a password reset");
  assert((await login("cli-password-2")).status === 200, "new password refused");
});

await check(onPostgres ? "backup explains pg_dump on PostgreSQL and writes nothing" : "backup writes a consistent copy while serving", () => {
  if (onPostgres) {
    const r = run(["backup", "backup.db"], { DATA_DIR: join(dir, "data"), ...backend });
    assert(r.exitCode === 1 && r.stderr.toString().includes("pg_dump"), `exit ${r.exitCode}: ${r.stderr}`);
    assert(!existsSync(join(dir, "backup.db")), "a backup.db was written");
    return;
  }
  const r = run(["backup", "backup.db"], { DATA_DIR: join(dir, "data") });
  assert(r.exitCode === 0, r.stderr.toString());
  const copy = new Database(join(dir, "backup.db"), { readonly: true });
  const n = copy.query("SELECT COUNT(*) AS n FROM users").get() as { n: number };
  copy.close();
  assert(n.n === 2, `backup has ${n.n} users`);
  const again = run(["backup", "backup.db"], { DATA_DIR: join(dir, "data") });
  assert(again.exitCode !== 0, "overwrote an existing backup");
});

// README "API": a user and a key made with the CLI, then nothing but `Authorization: Bearer`
// (no cookie, no Origin): create, edit, list, follow, read the analytics, and meet the limit.
await check("API walkthrough with a key from the CLI: create, edit, list, analytics, then 429 past the limit", async () => {
  const env = { DATA_DIR: join(dir, "data"), ...backend };
  const user = run(["user", "create", "apiwalk", "apiwalk@example.test"], { ...env, THREADLINK_PASSWORD: "api-walk-password" });
  assert(user.exitCode === 0, user.stderr.toString());
  const made = run(["api-key", "create", "apiwalk", "smoke script", "--scope", "read-write"], env);
  assert(made.exitCode === 0, made.stderr.toString());
  const key = made.stdout.toString().trim().split("\n").at(-1)!;
  assert(/^tl_[A-Za-z0-9_-]{43}$/.test(key), `no key on the last line: ${made.stdout}`);
  const api = async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const r = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: r.status, headers: r.headers, json: (await r.json()) as any };
  };
  const remaining: number[] = [];
  const counted = (r: { headers: Headers }) => {
    assert(r.headers.get("ratelimit-limit") === String(KEY_LIMIT), `RateLimit-Limit ${r.headers.get("ratelimit-limit")}`);
    remaining.push(Number(r.headers.get("ratelimit-remaining")));
  };

  const created = await api("POST", "/api/links", { originalUrl: "https://example.com/first", title: "From a script", shortCode: "smoke-api" });
  assert(created.status === 201 && created.json.shortCode === "smoke-api", `create ${created.status} ${JSON.stringify(created.json)}`);
  counted(created);
  const edited = await api("PUT", `/api/links/${created.json.id}`, { originalUrl: "https://example.com/edited", title: "Edited by a script", description: "via the API" });
  assert(edited.status === 200 && edited.json.originalUrl === "https://example.com/edited", `edit ${edited.status} ${JSON.stringify(edited.json)}`);
  counted(edited);
  const follow = await fetch(`${base}/smoke-api`, { redirect: "manual" });
  assert(follow.status === 302 && follow.headers.get("location") === "https://example.com/edited", `redirect ${follow.status} → ${follow.headers.get("location")}`);
  assert(!follow.headers.has("ratelimit-limit"), "the redirect was rate limited");
  const list = await api("GET", "/api/links");
  assert(list.status === 200 && list.json.length === 1 && list.json[0].title === "Edited by a script", `list ${list.status} ${JSON.stringify(list.json)}`);
  assert(list.json[0].clickCount === 1, `clickCount ${list.json[0].clickCount}`);
  counted(list);
  const report = await api("GET", `/api/links/${created.json.id}/analytics`);
  assert(report.status === 200 && report.json.clickCount === 1 && report.json.clicks.length === 1, `analytics ${report.status} ${JSON.stringify(report.json).slice(0, 300)}`);
  counted(report);
  // A key never reaches account routes, and the cookie-less request skipped the Origin check.
  const keys = await api("GET", "/api/api-keys");
  assert(keys.status === 403, "a key listed the keys");
  counted(keys);

  let limited: Awaited<ReturnType<typeof api>> | null = null;
  for (let i = 0; i < KEY_LIMIT && !limited; i++) {
    const r = await api("GET", "/api/links");
    if (r.status === 429) limited = r;
    else counted(r);
  }
  assert(limited, `no 429 within ${KEY_LIMIT} more requests`);
  // Every answer counted one down, to 0; the next was refused.
  const expected = Array.from({ length: KEY_LIMIT }, (_, i) => KEY_LIMIT - 1 - i);
  assert(remaining.join() === expected.join(), `RateLimit-Remaining went ${remaining}, not ${expected}`);
  const retry = Number(limited.headers.get("retry-after"));
  assert(retry >= 1 && retry <= 60, `Retry-After ${limited.headers.get("retry-after")}`);
  assert(limited.headers.get("ratelimit-remaining") === "0" && Number(limited.headers.get("ratelimit-reset")) === retry, "429 without its RateLimit fields");
  assert(limited.json.error?.code === "RATE_LIMITED", JSON.stringify(limited.json));
  const write = await api("POST", "/api/links", { originalUrl: "https://example.com/too-many", title: "Refused" });
  assert(write.status === 429, `a write past the limit answered ${write.status}`);
  const n = await scalar("SELECT COUNT(*) AS n FROM short_links WHERE original_url = 'https://example.com/too-many'");
  assert(n === 0, "the refused write was stored");
});

await check(onPostgres ? "SIGTERM exits 0 and closes every connection to PostgreSQL" : "SIGTERM exits 0 and leaves an intact database", async () => {
  server.kill("SIGTERM");
  const code = await Promise.race([server.exited, Bun.sleep(10_000).then(() => "timeout")]);
  assert(code === 0, `exit code ${code}`);
  if (onPostgres) {
    // A backend ends a moment after its client closes: a second's grace before it counts.
    let open = 0;
    for (let i = 0; i < 20; i++) {
      open = await scalar("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = 'threadlink_smoke' AND pid <> pg_backend_pid()");
      if (open === 0) break;
      await Bun.sleep(50);
    }
    assert(open === 0, `${open} connections still open 1 s after the server stopped`);
    return;
  }
  const db = new Database(join(dir, "data", "threadlink.db"));
  const ok = db.query("PRAGMA integrity_check").get() as { integrity_check: string };
  db.close();
  assert(ok.integrity_check === "ok", ok.integrity_check);
});

await check("migrate on an up-to-date database is a no-op", () => {
  const r = run(["migrate"], { DATA_DIR: join(dir, "data"), ...backend });
  assert(r.exitCode === 0 && r.stdout.toString().includes("Up to date"), r.stdout.toString() + r.stderr.toString());
});

if (server.exitCode === null) server.kill("SIGKILL");
await server.exited;
await cluster?.stop();
rmSync(dir, { recursive: true, force: true });
console.log(`smoke: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
