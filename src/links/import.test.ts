// POST /api/links/import and GET /api/links/export (issue 14): the three import formats from
// real-looking files, the per-row report, hostile files, and an export that imports back.
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { ORIGIN, setup } from "../test/helpers";
import { CSV_BODY_BYTES, NOT_CSV_TYPE_MESSAGE } from "../http/bodyLimit";
import { IMPORT_MSG, JSON_SHAPE_MESSAGE } from "../shared/csvImport";
import { IMPORT_BUSY_MESSAGE, TOO_MANY_ROWS_MESSAGE } from "./import";
import { ExportJson, IMPORT_MAX_ROWS, ImportReport, MSG } from "./schema";

const t = await setup({ SHORT_DOMAIN: "go.example" });
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");
const fixture = (name: string) => Bun.file(new URL(`./fixtures/${name}`, import.meta.url)).bytes();

type Setup = Awaited<ReturnType<typeof setup>>;

async function send(app: Setup, body: string | Uint8Array, cookie: string | undefined, opts: { type?: string; query?: string } = {}) {
  const headers: Record<string, string> = { host: "localhost:3000", "content-type": opts.type ?? "text/csv" };
  if (cookie) headers.cookie = cookie;
  const res = await app.app.handle(new Request(`${ORIGIN}/api/links/import${opts.query ?? ""}`, { method: "POST", headers, body: body as BodyInit }));
  const text = await res.text();
  return { status: res.status, json: res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : null, text, headers: res.headers };
}
const importCsv = (body: string | Uint8Array, cookie: string | undefined = alice.cookie, opts: { type?: string; query?: string } = {}) => send(t, body, cookie, opts);

const links = () => t.count("short_links");
const location = async (code: string) => (await t.call("GET", `/${code}`)).headers.get("location");
const link = (code: string) => t.database.get<Record<string, unknown>>("SELECT user_id, original_url, title, description, expires_at FROM short_links WHERE short_code = ?", code);
const imported = (row: number, shortCode: string, note?: string) => ({ row, status: "imported", shortCode, shortUrl: `http://go.example/${shortCode}`, ...(note ? { note } : {}) });
const skipped = (row: number, code: string, message: string, field?: string) => ({ row, status: "skipped", error: { code, message, ...(field ? { fields: { [field]: message } } : {}) } });

describe("import formats, from fixture files", () => {
  test("plain url,code,title: good rows imported (codes kept or generated), bad ones reported with row and reason", async () => {
    const before = await links();
    const r = await importCsv(await fixture("plain.csv"));
    expect(r.status).toBe(200);
    expect(v.is(ImportReport, r.json)).toBe(true);
    expect(r.json).toMatchObject({ format: "plain", rows: 7, imported: 5, skipped: 2 });
    const generated = r.json.results[1].shortCode;
    expect(generated).toMatch(/^[A-Za-z0-9_-]{7}$/);
    expect(r.json.results).toEqual([
      imported(2, "spring-sale"),
      imported(3, generated),
      imported(4, "shoe-1234"),
      skipped(5, "VALIDATION", MSG.urlSpaces, "originalUrl"),
      skipped(6, "VALIDATION", MSG.codeReserved, "shortCode"),
      // An import keeps a code of 1–2 characters (codes other tools issued: issue 23).
      imported(7, "ab"),
      imported(8, "no-title", IMPORT_MSG.titleFilled),
    ]);
    expect(await links()).toBe(before + 5);
    expect(await link("shoe-1234")).toMatchObject({ user_id: alice.user.id, title: 'The "Runner" shoe' });
    expect(await link(generated)).toMatchObject({ title: "Getting started, step by step", original_url: "https://docs.example.org/guide/getting-started" });
    expect(await link("no-title")).toMatchObject({ title: "example.com/no-title" });
    // The redirect map follows every imported link at once.
    expect(await location("spring-sale")).toBe("https://example.com/spring-sale?utm_source=newsletter&utm_medium=email");
  });

  test("Shlink's web-client export (CRLF; a two-character code kept, as Shlink issued it)", async () => {
    const r = await importCsv(await fixture("shlink.csv"), bob.cookie);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ format: "shlink", rows: 4, imported: 4, skipped: 0 });
    expect(r.json.results).toEqual([
      imported(2, "q4Xf2"),
      imported(3, "meetup-feb"),
      imported(4, "xmas", IMPORT_MSG.titleFilled),
      imported(5, "b8"),
    ]);
    expect(await link("q4Xf2")).toMatchObject({ user_id: bob.user.id, original_url: "https://blog.example.com/2024/03/release-notes", title: "Release notes, March" });
    expect(await location("meetup-feb")).toBe("https://www.meetup.com/example-group/events/298765432/");
  });

  test("YOURLS's export (keyword,url,title,timestamp,ip,clicks): one-character keywords kept, javascript: URLs refused", async () => {
    const r = await importCsv(await fixture("yourls.csv"), bob.cookie);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ format: "yourls", rows: 5, imported: 4, skipped: 1 });
    expect(r.json.results).toEqual([
      imported(2, "ozh"),
      imported(3, "yourls"),
      imported(4, "1"),
      imported(5, "gh-repo"),
      skipped(6, "VALIDATION", MSG.urlScheme, "originalUrl"),
    ]);
    expect(await link("ozh")).toMatchObject({ original_url: "http://ozh.org/", title: "ozh.org — Ozh Richard" });
    expect((await link("gh-repo"))?.title).toContain("🔗");
    expect(await link("javascript")).toBeNull();
  });

  test("a semicolon-separated file and a UTF-16 file (Excel's 'Unicode text') import too", async () => {
    const semi = await importCsv("URL;Code;Title\r\nhttps://example.com/semi;semi-colon;Semicolons, and a comma\r\n");
    expect(semi.json.results).toEqual([imported(2, "semi-colon")]);
    expect((await link("semi-colon"))?.title).toBe("Semicolons, and a comma");
    const text = "url,code,title\r\nhttps://example.com/utf16,utf-sixteen,Grüße aus Köln\r\n";
    const le = new Uint8Array(2 + text.length * 2);
    le.set([0xff, 0xfe]);
    for (let i = 0; i < text.length; i++) le.set([text.charCodeAt(i) & 0xff, text.charCodeAt(i) >> 8], 2 + i * 2);
    const r = await importCsv(le);
    expect(r.json.results).toEqual([imported(2, "utf-sixteen")]);
    expect((await link("utf-sixteen"))?.title).toBe("Grüße aus Köln");
  });

  test("rowOffset numbers a part of a file as the whole file's rows", async () => {
    const r = await importCsv("url,code,title\nhttps://example.com/part,part-row,Part\nnope,part-bad,Bad\n", alice.cookie, { query: "?rowOffset=500" });
    expect(r.json.results).toEqual([imported(502, "part-row"), skipped(503, "VALIDATION", MSG.url, "originalUrl")]);
    const bad = await importCsv("url\nhttps://example.com", alice.cookie, { query: "?rowOffset=-1" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.fields).toEqual({ rowOffset: "rowOffset must be a whole number" });
  });
});

describe("hostile files", () => {
  test("BOM, non-UTF-8 bytes, formula cells, wrong column counts, a quoted line break, a control character, an unclosed quote: each row reported", async () => {
    const r = await importCsv(await fixture("hostile.csv"));
    expect(r.status).toBe(200);
    expect(r.json.results).toEqual([
      imported(2, "hostile-ok-1"),
      skipped(3, "BAD_REQUEST", IMPORT_MSG.badBytes),
      imported(4, "formula-title"),
      skipped(5, "VALIDATION", MSG.urlSpaces, "originalUrl"),
      skipped(6, "BAD_REQUEST", IMPORT_MSG.fields(4, 3)),
      skipped(7, "BAD_REQUEST", IMPORT_MSG.fields(2, 3)),
      imported(8, "hostile-ok-2"),
      skipped(9, "VALIDATION", MSG.urlSpaces, "originalUrl"),
      imported(10, "hostile-ok-3"),
      skipped(11, "BAD_REQUEST", IMPORT_MSG.unclosedQuote),
    ]);
    // Formula-looking text is kept as data (it is only dangerous in a spreadsheet; the export guards it).
    expect((await link("formula-title"))?.title).toBe('=HYPERLINK("https://evil.example","click")');
    expect((await link("hostile-ok-2"))?.title).toBe('Quoted, with "quotes" and a line break');
    expect(await link("never-imported")).toBeNull();
    expect(await link("latin-1")).toBeNull();
  });

  test("a file of one 10 MB line: the line is reported, the good rows around it imported, no 5xx", async () => {
    const head = "url,code,title\nhttps://example.com/before,before-huge,Before\n";
    const tail = "\nhttps://example.com/after,after-huge,After\n";
    const huge = `https://example.com/${"x".repeat(CSV_BODY_BYTES - head.length - tail.length - 60)},huge-line,Huge`;
    const body = head + huge + tail;
    expect(body.length).toBeLessThanOrEqual(CSV_BODY_BYTES);
    const r = await importCsv(body);
    expect(r.status).toBe(200);
    expect(r.json.results).toEqual([imported(2, "before-huge"), skipped(3, "VALIDATION", MSG.urlLength, "originalUrl"), imported(4, "after-huge")]);
    // The reason never echoes the line back.
    expect(r.text.length).toBeLessThan(1000);
  });

  test(
    "100,000 rows import in batches; redirects keep answering while it runs",
    async () => {
      const rows = ["url,code,title"];
      for (let i = 0; i < IMPORT_MAX_ROWS; i++) rows.push(i % 1000 === 999 ? `bad url ${i},,Bad ${i}` : `https://example.com/many/${i},many-${i},Many ${i}`);
      const before = await links();
      const started = performance.now();
      const running = importCsv(rows.join("\n"), bob.cookie);
      // A redirect asked for while the import runs is answered before the import ends.
      const redirect = await t.call("GET", "/q4Xf2");
      const redirectDone = performance.now();
      const r = await running;
      expect(redirect.status).toBe(302);
      expect(r.status).toBe(200);
      expect(redirectDone - started).toBeLessThan(performance.now() - started);
      expect(r.json).toMatchObject({ rows: IMPORT_MAX_ROWS, imported: IMPORT_MAX_ROWS - 100, skipped: 100 });
      expect(r.json.results[999]).toEqual(skipped(1001, "VALIDATION", MSG.urlSpaces, "originalUrl"));
      expect(await links()).toBe(before + IMPORT_MAX_ROWS - 100);
      expect(await location("many-99998")).toBe("https://example.com/many/99998");
    },
    120_000,
  );

  test("more than 100,000 rows is one 413 and nothing is written; so is a body over 10 MB", async () => {
    const before = await links();
    const rows = ["url,code,title"];
    for (let i = 0; i <= IMPORT_MAX_ROWS; i++) rows.push(`https://example.com/over/${i},,Over ${i}`);
    const r = await importCsv(rows.join("\n"));
    expect(r.status).toBe(413);
    expect(r.json.error).toEqual({ code: "PAYLOAD_TOO_LARGE", message: TOO_MANY_ROWS_MESSAGE });
    const big = await importCsv(`url,code,title\n${"x".repeat(CSV_BODY_BYTES)}`);
    expect(big.status).toBe(413);
    expect(big.json.error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await links()).toBe(before);
  });

  const refused: [string, () => Promise<Awaited<ReturnType<typeof importCsv>>>, number, string][] = [
    ["not signed in", () => importCsv("url\nhttps://example.com/anon", ""), 401, "Please sign in to continue"],
    ["a wrong session", () => importCsv("url\nhttps://example.com/anon", "tl_session=not-a-session-token-at-all"), 401, "Please sign in to continue"],
    ["JSON that is not the JSON export", () => importCsv('{"url":"https://example.com"}', alice.cookie, { type: "application/json" }), 400, JSON_SHAPE_MESSAGE],
    ["a file of another type", () => importCsv("<xml/>", alice.cookie, { type: "application/xml" }), 415, NOT_CSV_TYPE_MESSAGE],
    ["an empty file", () => importCsv(""), 400, IMPORT_MSG.empty],
    ["a file of blank lines", () => importCsv("\r\n\r\n  \n"), 400, IMPORT_MSG.empty],
    ["a header that names no known format", () => importCsv("name,link\nx,https://example.com"), 400, IMPORT_MSG.header],
    ["a header with an unclosed quote", () => importCsv('"url,code\nhttps://example.com,abc'), 400, IMPORT_MSG.header],
  ];
  test.each(refused)("%s: a clear 4xx and nothing written", async (_name, run, status, message) => {
    const before = await links();
    const r = await run();
    expect(r.status).toBe(status);
    expect(r.json.error.message).toBe(message);
    expect(await links()).toBe(before);
  });

  test("another user's codes are reported taken and their links stay theirs", async () => {
    const r = await importCsv("url,code,title\nhttps://evil.example/,meetup-feb,Mine now\n");
    expect(r.json.results).toEqual([skipped(2, "CONFLICT", MSG.codeTaken, "shortCode")]);
    expect(await link("meetup-feb")).toMatchObject({ user_id: bob.user.id, original_url: "https://www.meetup.com/example-group/events/298765432/" });
  });

  test("a second import into the same account while one runs is 409; another account's may run", async () => {
    const rows = ["url,title"];
    for (let i = 0; i < 5000; i++) rows.push(`https://example.com/busy/${i},Busy ${i}`);
    const before = await links();
    const first = importCsv(rows.join("\n"));
    // Running once its first rows are in (on PostgreSQL its sign-in check alone awaits the
    // database, so one turn of the event loop is not enough to be sure it has begun).
    while ((await links()) === before) await Bun.sleep(1);
    const second = await importCsv("url,title\nhttps://example.com/second,Second");
    const other = await importCsv("url,title\nhttps://example.com/other,Other", bob.cookie);
    expect(second.status).toBe(409);
    expect(second.json.error).toEqual({ code: "CONFLICT", message: IMPORT_BUSY_MESSAGE });
    expect(other.status).toBe(200);
    expect((await first).json.imported).toBe(5000);
  });
});

describe("GET /api/links/export", () => {
  test("CSV: a download with a BOM, the header row, every own link with its clicks, formula cells guarded", async () => {
    const c = await t.signUp("carol");
    const made = await t.call("POST", "/api/links/bulk", {
      body: {
        links: [
          { originalUrl: "https://example.com/c1", title: "=1+2", shortCode: "carol-one", description: "-minus first" },
          { originalUrl: "https://example.com/c2", title: "Comma, \"quote\"\nand line", shortCode: "-carol-two" },
        ],
      },
      cookie: c.cookie,
    });
    expect(made.json.created).toBe(1);
    expect(made.json.results[1].error.fields.title).toBe("Title must not contain control characters");
    await t.call("GET", "/carol-one");
    const r = await t.call("GET", "/api/links/export.csv", { cookie: c.cookie });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(r.headers.get("content-disposition")).toMatch(/^attachment; filename="links-carol-\d{4}-\d{2}-\d{2}\.csv"$/);
    // UTF-8 with a BOM (a client's text() drops it, so the bytes are read).
    const raw = await t.app.handle(new Request(`${ORIGIN}/api/links/export.csv`, { headers: { host: "localhost:3000", cookie: c.cookie } }));
    expect([...new Uint8Array(await raw.arrayBuffer()).slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(r.text.startsWith("code,url,title,description,expiresAt,clicks,shortUrl,active,createdAt,updatedAt,tags,importedClicks,smart\r\n")).toBe(true);
    const lines = r.text.trim().split("\r\n");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^carol-one,https:\/\/example\.com\/c1,'=1\+2,'-minus first,,1,http:\/\/go\.example\/carol-one,true,/);
  });

  test("JSON: the same links as objects; only the user's own; read-only fields included", async () => {
    const r = await t.call("GET", "/api/links/export.json", { cookie: bob.cookie });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-disposition")).toMatch(/filename="links-bob-.*\.json"/);
    expect(v.is(ExportJson, r.json)).toBe(true);
    const codes = r.json.links.map((l: { shortCode: string }) => l.shortCode);
    expect(codes).toContain("meetup-feb");
    expect(codes).not.toContain("spring-sale");
    expect(r.json.links.find((l: { shortCode: string }) => l.shortCode === "q4Xf2")).toMatchObject({ clickCount: 1, active: true, originalUrl: "https://blog.example.com/2024/03/release-notes" });
    expect((await t.call("GET", "/api/links/export.json")).status).toBe(401);
    expect((await t.call("GET", "/api/links/export.csv")).status).toBe(401);
    // Bob holds the 100,000 links of the import above: a whole export of them, not a quick call.
  }, 30_000);

  test("round trip: an export imported into an account on another instance gives the same links", async () => {
    // Tags travel too: two of alice's links carry some.
    const tagged = (await t.call("GET", "/api/links?limit=2", { cookie: alice.cookie })).json as { id: number }[];
    await t.call("PATCH", `/api/links/${tagged[0]!.id}`, { body: { tags: ["Round", "trip"] }, cookie: alice.cookie });
    await t.call("PATCH", `/api/links/${tagged[1]!.id}`, { body: { tags: ["trip"] }, cookie: alice.cookie });
    const exported = await t.call("GET", "/api/links/export.csv", { cookie: alice.cookie });
    const other = await setup({ SHORT_DOMAIN: "go.example" });
    const dave = await other.signUp("dave");
    const r = await send(other, exported.text, dave.cookie);
    expect(r.status).toBe(200);
    expect(r.json.skipped).toBe(0);
    const shape = (rows: { shortCode: string; originalUrl: string; title: string; description: string | null; expiresAt: string | null; tags: string[] }[]) =>
      rows.map(({ shortCode, originalUrl, title, description, expiresAt, tags }) => ({ shortCode, originalUrl, title, description, expiresAt, tags })).sort((a, b) => a.shortCode.localeCompare(b.shortCode));
    // Every page of each list (x-next-cursor until the last).
    const all = async (app: typeof t, cookie: string) => {
      const rows = [];
      for (let cursor: string | null = ""; cursor !== null; ) {
        const page = await app.call("GET", `/api/links?limit=1000&cursor=${cursor}`, { cookie });
        rows.push(...page.json);
        cursor = page.headers.get("x-next-cursor");
      }
      return rows;
    };
    const mine = await all(t, alice.cookie);
    const theirs = await all(other, dave.cookie);
    expect(mine.length).toBeGreaterThan(5);
    expect(shape(theirs)).toEqual(shape(mine));
    expect(mine.some((l: { title: string }) => l.title.startsWith("="))).toBe(true);
    expect(theirs.some((l: { tags: string[] }) => l.tags.join() === "Round,trip")).toBe(true);
    // A second instance (a second database on PostgreSQL) and thousands of links: seconds under load.
  }, 30_000);
});
