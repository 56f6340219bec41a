// `threadlink migrate-data`: a SQLite install made by the real app (its API, its click writer)
// copied into a real PostgreSQL 15, then compared table by table and row by row.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SQL } from "bun";
import { startCluster } from "../../scripts/lib/pgcluster";
import { clickWriterStore } from "../analytics/writerStore";
import { migratePg, openPg } from "../db/pg";
import { PASSWORD, setup } from "../test/helpers";
import { migrateData, TargetNotEmptyError } from "./migrateData";

const cluster = await startCluster();
const pools: SQL[] = [];
afterAll(async () => {
  for (const p of pools) await p.close();
  await cluster.stop();
});
async function target() {
  const url = await cluster.createDatabase();
  const sql = openPg(url);
  pools.push(sql);
  return { url, sql };
}

// --- A real install: everything made through the app -------------------------------------
const t = await setup();
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");
const ok = async (method: string, path: string, cookie: string, body?: Record<string, unknown>) => {
  const r = await t.call(method, path, { cookie, body });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.json;
};
const board = await ok("POST", "/api/topics", alice.cookie, { name: "Open Board", accessType: "public" });
await ok("POST", "/api/topics", alice.cookie, { name: "Launch Day" });
// Text COPY must carry as it is: new lines, a tab, backslashes, quotes, emoji.
const NOTES = "line one\nline two\twith a tab, C:\\path\\ and \\N, 'quotes' \"too\" 🧵";
const title = await ok("POST", `/api/alice/${board.linkSlug}/titles`, alice.cookie, { name: "Hello World", notes: NOTES });
const second = await ok("POST", `/api/alice/${board.linkSlug}/titles`, alice.cookie, { name: "Hello World" });
// Renaming every version of a series keeps its old slug working (title_slugs).
for (const id of [title.id, second.id]) await ok("PUT", `/api/alice/${board.linkSlug}/titles/${id}`, alice.cookie, { name: "Greetings" });
await ok("POST", `/api/topic/alice/${board.linkSlug}/open`, bob.cookie);
const invite = await ok("POST", "/api/invites", alice.cookie);
await ok("POST", `/api/invites/${encodeURIComponent(invite.code)}/accept`, bob.cookie);
await ok("POST", "/api/api-keys", alice.cookie, { name: "ci", scope: "read" });
// A saved QR style, with a frame text that COPY must carry as typed.
await ok("POST", "/api/qr-styles", alice.cookie, { name: "Poster", foreground: "#0b3d91", background: "#fff", dots: "dots", corners: "rounded", frameText: "Scan \\ me 🧵" });
// A webhook, whose queue gets the links below and their clicks (a click batch's body is stored
// apart, in webhook_bodies; the event log has rows by now too).
await ok("POST", "/api/webhooks", alice.cookie, { url: "https://hooks.example.invalid/in", events: ["link.created", "clicks.recorded"] });
expect((await t.call("POST", "/api/login", { body: { username: "bob", password: PASSWORD } })).status).toBe(200);
const busy = await ok("POST", "/api/links", alice.cookie, { originalUrl: "https://example.com/busy?a=1&b=2", title: "Busy; DROP TABLE users; --", shortCode: "busy", tags: ["Launch", "news"] });
const quiet = await ok("POST", "/api/links", bob.cookie, { originalUrl: "https://example.com/quiet", title: "Quiet", shortCode: "quiet" });
const agents = ["Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36", "curl/8.5.0", "Googlebot/2.1 (+http://www.google.com/bot.html)"];
for (let i = 0; i < 6; i++) await t.call("GET", "/busy", { headers: { "user-agent": agents[i % 3]!, referer: "https://news.example/item?id=1" } });
await t.call("GET", "/quiet");
// A published stats page and a saved UTM template (issues 24, 26).
await ok("POST", `/api/stats/${busy.id}/public`, alice.cookie);
await ok("POST", "/api/utm-templates", alice.cookie, { name: "News", source: "newsletter", medium: "email" });
// A password-protected link whose page a visitor opened (its view tally is written within a second).
const locked = await ok("POST", "/api/links", alice.cookie, { originalUrl: "https://example.com/locked", title: "Locked", shortCode: "locked" });
await ok("PUT", `/api/links/${locked.id}/smart`, alice.cookie, { password: "open sesame" });
expect((await t.call("GET", "/locked")).status).toBe(200);
const gateRows = () => (t.db.query("SELECT COUNT(*) AS n FROM link_gate_counts").get() as { n: number }).n;
for (let i = 0; i < 150 && gateRows() === 0; i++) await Bun.sleep(20);
const clicks = (id: number) => (t.db.query("SELECT clicks FROM link_click_counts WHERE link_id = ?").get(id) as { clicks: number }).clicks;
for (let i = 0; i < 300 && (clicks(busy.id) < 6 || clicks(quiet.id) < 1); i++) await Bun.sleep(20);
expect([clicks(busy.id), clicks(quiet.id)]).toEqual([6, 1]);
// Reading the analytics folds the clicks into roll-ups (and the first click made a notification).
await ok("GET", `/api/links/${busy.id}/analytics`, alice.cookie);
// The click writer's fold (as at idle), then the link with the newest click deleted: the fold
// mark is now above every click id left.
t.db.transaction(() => clickWriterStore(t.db).fold(1)).immediate();
await ok("DELETE", `/api/links/${quiet.id}`, bob.cookie);
const folded = (t.db.query("SELECT folded FROM click_fold").get() as { folded: number }).folded;
expect(folded).toBeGreaterThan((t.db.query("SELECT MAX(id) AS id FROM link_analytics").get() as { id: number }).id);

const liteCount = (table: string) => (t.db.query(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
// The search index's tables (FTS5: a virtual table and its shadows) are SQLite's own, not copied.
const liteTables = (
  t.db
    .query(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'schema_migrations'
       AND name NOT IN (SELECT name FROM pragma_table_list WHERE type IN ('virtual', 'shadow')) ORDER BY name`,
    )
    .all() as { name: string }[]
).map((r) => r.name);

describe("a copy of a real install", async () => {
  const { url, sql } = await target();
  const said: string[] = [];
  const report = await migrateData(t.config, [url], (line) => said.push(line));
  const pgCount = async (table: string) => (await sql.unsafe(`SELECT COUNT(*)::int AS n FROM ${table}`))[0].n as number;

  test("the install has rows in every table it is tested with", () => {
    const empty = liteTables.filter((name) => liteCount(name) === 0);
    expect(empty).toEqual([]);
  });

  test("every table's rows arrive, and the printed table says so per table", async () => {
    for (const name of liteTables) {
      expect({ name, rows: await pgCount(name) }).toEqual({ name, rows: liteCount(name) });
      expect(report).toMatch(new RegExp(`^  ${name} +${liteCount(name)} +${liteCount(name)}$`, "m"));
    }
    const total = liteTables.reduce((s, name) => s + liteCount(name), 0);
    expect(report).toMatch(new RegExp(`^  total +${total} +${total}$`, "m"));
    expect(report).toContain(`Copied ${liteTables.length} tables; every count matches.`);
    expect(said.join("\n")).toContain("Stop the server first");
    // The password in the URL is never printed.
    const password = decodeURIComponent(new URL(url).password);
    expect(`${report}\n${said.join("\n")}`).not.toContain(password);
  });

  test("rows arrive field by field: users, titles with awkward text, links, clicks and counts", async () => {
    const same = async (query: string, bigints: string[] = [], pgOnly: string[] = []) => {
      const lite = t.db.query(query).all() as Record<string, unknown>[];
      const pg = [...(await sql.unsafe(query))].map((r: Record<string, unknown>) => {
        // Bun returns PostgreSQL bigint as a string: the columns that count clicks.
        for (const c of bigints) r[c] = r[c] === null ? null : Number(r[c]);
        // A column PostgreSQL computes itself is not copied: it is there, and filled.
        for (const c of pgOnly) {
          expect(r[c]).toBeTruthy();
          delete r[c];
        }
        return { ...r };
      });
      expect(pg).toEqual(lite);
      return lite;
    };
    const users = await same("SELECT * FROM users ORDER BY id");
    expect(users.map((u) => u.username)).toEqual(["alice", "bob"]);
    const titles = await same("SELECT * FROM titles ORDER BY id");
    expect(titles.find((r) => r.id === title.id)!.notes).toBe(NOTES);
    // search_words: the words PostgreSQL searches a link by, generated from its columns (migrations/pg/0024).
    await same("SELECT * FROM short_links ORDER BY id", [], ["search_words"]);
    await same("SELECT * FROM link_analytics ORDER BY id", ["id"]);
    await same("SELECT * FROM link_click_counts ORDER BY link_id", ["clicks"]);
    await same("SELECT * FROM link_rollups ORDER BY link_id, dim, value", ["count"]);
    await same("SELECT * FROM sessions ORDER BY id");
    await same("SELECT * FROM api_keys ORDER BY id");
    expect((await same("SELECT * FROM qr_styles ORDER BY id"))[0]!.frame_text).toBe("Scan \\ me 🧵");
  });

  test("new rows continue after the copied ids", async () => {
    const now = new Date().toISOString();
    const maxUser = (t.db.query("SELECT MAX(id) AS id FROM users").get() as { id: number }).id;
    const [user] = await sql`INSERT INTO users (username, password_hash, email, created_at, updated_at) VALUES ('carol', 'x', 'carol@example.test', ${now}, ${now}) RETURNING id`;
    expect(user.id).toBe(maxUser + 1);
    const maxLink = (t.db.query("SELECT MAX(id) AS id FROM short_links").get() as { id: number }).id;
    const [link] = await sql`INSERT INTO short_links (user_id, short_code, original_url, title, created_at, updated_at) VALUES (${user.id}, 'fresh', 'https://example.com/', 't', ${now}, ${now}) RETURNING id`;
    expect(link.id).toBe(maxLink + 1);
    // Its count row came from the trigger, which is on again after the copy.
    expect((await sql`SELECT clicks FROM link_click_counts WHERE link_id = ${link.id}`)[0].clicks).toBe("0");
    // Above the fold mark, which is above every click left (the newest one's link was deleted).
    const [click] = await sql`INSERT INTO link_analytics (link_id, timestamp) VALUES (${link.id}, ${now}) RETURNING id`;
    expect(Number(click.id)).toBe(folded + 1);
    for (const table of ["topics", "titles", "notifications", "api_keys"]) {
      const max = (t.db.query(`SELECT COALESCE(MAX(id), 0) AS id FROM ${table}`).get() as { id: number }).id;
      const next = (await sql.unsafe(`SELECT nextval(pg_get_serial_sequence('${table}', 'id'))::int AS n`))[0].n;
      expect({ table, next }).toEqual({ table, next: max + 1 });
    }
  });

  test("a second copy into the now non-empty database is refused, and changes nothing", async () => {
    const before = await pgCount("users");
    const error = await migrateData(t.config, [url], () => {}).catch((e) => e);
    expect(error).toBeInstanceOf(TargetNotEmptyError);
    expect(error.message).toMatch(/^The target database 127\.0\.0\.1:\d+\/\w+ is not empty \(users: \d+, .*\): migrate-data copies into an empty database only/);
    expect(await pgCount("users")).toBe(before);
  });
});

describe("targets", () => {
  test("a database that `threadlink migrate` already set up, but holds no data, counts as empty", async () => {
    const { url, sql } = await target();
    await migratePg(sql);
    const report = await migrateData(t.config, [url], () => {});
    expect(report).toContain("every count matches");
    // The migration's own root link gave way to the install's (same id, same clicks row).
    const liteRoot = t.db.query("SELECT id, original_url FROM short_links WHERE short_code = 'root'").get();
    expect((await sql`SELECT id, original_url FROM short_links WHERE short_code = 'root'`)[0]).toEqual(liteRoot);
  });

  test("a database holding another application's tables is refused before anything is created in it", async () => {
    const { url, sql } = await target();
    await sql`CREATE TABLE orders (id int)`;
    const error = await migrateData(t.config, [url], () => {}).catch((e) => e);
    expect(error).toBeInstanceOf(TargetNotEmptyError);
    expect(error.message).toContain("it holds tables Threadlink did not make (orders)");
    expect((await sql`SELECT to_regclass('schema_migrations') AS t`)[0].t).toBeNull();
  });

  test("a row PostgreSQL cannot store fails the copy with its table and column, leaves the target empty, and a fixed install then copies", async () => {
    const { url, sql } = await target();
    const install = await setup();
    const carl = await install.signUp("carl");
    const topic = (await install.call("POST", "/api/topics", { cookie: carl.cookie, body: { name: "Nul" } })).json;
    const made = await install.call("POST", `/api/carl/${topic.linkSlug}/titles`, { cookie: carl.cookie, body: { name: "Zero", notes: "ab" } });
    expect(made.status).toBe(201);
    // Written behind the API's back: the API refuses control characters now, but an install
    // from before that rule may hold them.
    install.db.query("UPDATE titles SET notes = ? WHERE id = ?").run("a\u0000b", made.json.id);
    const error = await migrateData(install.config, [url], () => {}).catch((e) => e);
    expect(error.message).toBe(
      "Copying titles failed: titles.notes holds a NUL character (U+0000), which PostgreSQL cannot store in text. Remove it from that row in SQLite, then run migrate-data again.",
    );
    expect((await sql`SELECT COUNT(*)::int AS n FROM users`)[0].n).toBe(0);
    install.db.query("UPDATE titles SET notes = 'ab' WHERE id = ?").run(made.json.id);
    expect(await migrateData(install.config, [url], () => {})).toContain("every count matches");
    expect((await sql`SELECT notes FROM titles WHERE id = ${made.json.id}`)[0].notes).toBe("ab");
  });
});

describe("the command", () => {
  const cli = (args: string[], env: Record<string, string>) => {
    const r = Bun.spawnSync([process.execPath, join(import.meta.dir, "../main.ts"), "migrate-data", ...args], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
    return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
  };

  test("copies DATA_DIR's install and prints the table of counts", async () => {
    const { url } = await target();
    const r = cli([url], { DATA_DIR: t.dir });
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^ {2}table +SQLite +PostgreSQL$/m);
    expect(r.out).toMatch(new RegExp(`^  link_analytics +${liteCount("link_analytics")} +${liteCount("link_analytics")}$`, "m"));
  });

  test("takes DATABASE_URL when no URL is given", async () => {
    const { url } = await target();
    const r = cli([], { DATA_DIR: t.dir, DATABASE_URL: url });
    expect(r.code).toBe(0);
    expect(r.out).toContain("every count matches");
  });

  test("refuses what it cannot use, with a clear message and exit 1", () => {
    const usage = "Usage: threadlink migrate-data postgres://user:password@host:5432/database (or set DATABASE_URL)";
    expect(cli([], { DATA_DIR: t.dir })).toEqual({ code: 1, out: "", err: `Error: ${usage}\n` });
    expect(cli(["mysql://u:s3cret@h/db"], { DATA_DIR: t.dir })).toEqual({
      code: 1,
      out: "",
      err: `Error: The target must be a postgres:// or postgresql:// URL, such as postgres://user:password@host:5432/database.\n${usage}\n`,
    });
    const empty = mkdtempSync(join(tmpdir(), "threadlink-nodata-"));
    expect(cli(["postgres://u@127.0.0.1:1/db"], { DATA_DIR: empty })).toEqual({
      code: 1,
      out: "",
      err: `Error: There is no Threadlink database in DATA_DIR (${join(empty, "threadlink.db")}): nothing to copy.\n`,
    });
    rmSync(empty, { recursive: true });
  });
});
