// What a script writer does with Threadlink's API, written only against the types generated
// from the served document (openapi-typescript → .tmp/api-client/schema.d.ts) and called
// through openapi-fetch (issues 23 and 24, "Done when"). scripts/api-client/run.ts generates
// the types, type-checks this file against them (tsconfig.json beside it: a field the document
// does not declare is a compile error), then runs `flows` against the compiled binary; every
// answer is also checked against the document's schemas (the middleware below).
// This file imports nothing of the server's: only the document may tell it what the API is.
import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "../../.tmp/api-client/schema";

type Schemas = components["schemas"];
type LinkView = Schemas["LinkView"];
type ExportLink = paths["/api/links/export.json"]["get"]["responses"][200]["content"]["application/json"]["links"][number];
/** What the runner gives: the server, the document check, the fixture files and the step counter. */
export type Harness = {
  baseUrl: string;
  /** BRAND_DOMAIN of the server under test: a host of its own, so each tracker has its own codes. */
  brandHost: string;
  /** Problems of an answer against the document (none: it fits); `path` is the documented path. */
  check: (method: string, path: string, answer: { status: number; headers: Headers; json: unknown; text: string }) => string[];
  /** A fixture file's text and its rows (header names → cells). */
  fixtures: Record<string, { text: string; rows: Record<string, string>[] }>;
  /** One counted check: passes unless `fn` throws. */
  step: (name: string, fn: () => Promise<void>) => Promise<void>;
  /** A problem found outside a step (a response that broke the document): counted as a failure. */
  fail: (what: string) => void;
};

function assert(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new Error(msg);
}
function same(actual: unknown, expected: unknown, what: string) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  assert(a === e, `${what}: got ${a}, expected ${e}`);
}
/** The data of a successful call, or a thrown error naming the status and the error body. */
function ok<T>(r: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (r.data === undefined) throw new Error(`${what}: ${r.response.status} ${JSON.stringify(r.error)}`);
  return r.data;
}
/** An answer expected to fail with this status (its body fits the document: the middleware checks). */
function refused(r: { error?: unknown; response: Response }, status: number, what: string) {
  assert(r.response.status === status, `${what}: answered ${r.response.status} ${JSON.stringify(r.error)}, expected ${status}`);
}

export async function flows(h: Harness) {
  const { baseUrl, step } = h;
  let checked = 0;
  /** Every answer against the document: status documented, body and required headers fit. */
  const conformance: Middleware = {
    async onResponse({ request, response, schemaPath }) {
      const text = await response.clone().text();
      let json: unknown = null;
      try {
        json = JSON.parse(text);
      } catch {
        /* not JSON: the checker compares the media type */
      }
      checked++;
      for (const p of h.check(request.method, schemaPath, { status: response.status, headers: response.headers, json, text })) h.fail(p);
    },
  };
  const client = (headers: Record<string, string>) => {
    const c = createClient<paths>({ baseUrl, headers, redirect: "manual" });
    c.use(conformance);
    return c;
  };

  /** A new account and a read-write API key for it: the script writer's starting point. */
  async function account(username: string) {
    const anon = client({ origin: baseUrl });
    const reg = await anon.POST("/api/register", { body: { username, password: "correct horse battery", email: `${username}@example.test` } });
    ok(reg, `register ${username}`);
    const cookie = (reg.response.headers.getSetCookie?.() ?? []).map((c) => c.split(";")[0]).join("; ");
    assert(cookie, "register set no session cookie");
    const session = client({ origin: baseUrl, cookie });
    const made = ok(await session.POST("/api/api-keys", { body: { name: "script", scope: "read-write" } }), "create an API key");
    return client({ authorization: `Bearer ${made.key}` });
  }

  const alice = await account("client-alice");
  const bob = await account("client-bob");

  // -- One link: read, look up, patch; someone else's is a 404 -------------------------------
  let first: LinkView | undefined;
  await step("create a link, read it by id and look it up by code", async () => {
    const body: Schemas["CreateLinkBody"] = { originalUrl: "https://example.com/docs?x=1", title: "Docs", description: "read me" };
    const made = await alice.POST("/api/links", { body });
    refused(made, 201, "create");
    first = ok(made, "create");
    const byId = ok(await alice.GET("/api/links/{id}", { params: { path: { id: first.id } } }), "GET by id");
    same(byId, first, "GET /api/links/{id}");
    const byCode = ok(await alice.GET("/api/links/lookup", { params: { query: { code: first.shortCode } } }), "lookup");
    same(byCode.id, first.id, "lookup's id");
    same(byCode.originalUrl, "https://example.com/docs?x=1", "lookup's destination");
  });
  await step("a code that is not yours, and an id that is not yours, are 404 (and nothing changed)", async () => {
    assert(first, "no link");
    refused(await alice.GET("/api/links/lookup", { params: { query: { code: "no-such-code" } } }), 404, "unknown code");
    refused(await bob.GET("/api/links/lookup", { params: { query: { code: first.shortCode } } }), 404, "another user's code");
    refused(await bob.GET("/api/links/{id}", { params: { path: { id: first.id } } }), 404, "another user's id");
    refused(await bob.PATCH("/api/links/{id}", { params: { path: { id: first.id } }, body: { title: "Bob's now" } }), 404, "another user's patch");
    same(ok(await alice.GET("/api/links/{id}", { params: { path: { id: first.id } } }), "reread").title, "Docs", "title after bob's patch");
  });
  await step("PATCH changes only the fields sent", async () => {
    assert(first, "no link");
    const patched = ok(await alice.PATCH("/api/links/{id}", { params: { path: { id: first.id } }, body: { title: "Docs, patched" } }), "patch");
    same([patched.title, patched.originalUrl, patched.description, patched.shortCode], ["Docs, patched", first.originalUrl, first.description, first.shortCode], "after PATCH");
    const invalid = await alice.PATCH("/api/links/{id}", { params: { path: { id: first.id } }, body: { originalUrl: "ftp://example.com" } });
    refused(invalid, 400, "an ftp destination");
  });

  // -- Idempotent create ------------------------------------------------------------------
  await step("externalId: a retried create answers the first link (200), also when the two race", async () => {
    const body: Schemas["CreateLinkBody"] = { originalUrl: "https://example.com/retry", title: "Retry me", externalId: "crm-42" };
    const a = await alice.POST("/api/links", { body });
    refused(a, 201, "first create");
    const b = await alice.POST("/api/links", { body: { ...body, title: "A different title" } });
    refused(b, 200, "retried create");
    same(ok(b, "retry").id, ok(a, "first").id, "the retry's link");
    same(ok(b, "retry").title, "Retry me", "the retry changed nothing");
    same(ok(a, "first").externalId, "crm-42", "externalId read back");
    // Two at once, as a client that timed out and retried at once would send them.
    const race: Schemas["CreateLinkBody"] = { originalUrl: "https://example.com/race", title: "Race", externalId: "crm-race" };
    const both = await Promise.all([alice.POST("/api/links", { body: race }), alice.POST("/api/links", { body: race })]);
    same(both.map((r) => r.response.status).sort(), [200, 201], "statuses of two racing creates");
    same(ok(both[0]!, "race 0").id, ok(both[1]!, "race 1").id, "the racing creates' link");
    // Another user's externalId is theirs: the same id makes bob his own link.
    const bobs = await bob.POST("/api/links", { body });
    refused(bobs, 201, "bob's create with alice's externalId");
    const list = ok(await alice.GET("/api/links", { params: { query: { q: "retry" } } }), "list");
    same(list.length, 1, "alice's links titled Retry");
  });
  await step("bulk: an item whose externalId exists is `existing`, nothing made twice", async () => {
    const body: Schemas["BulkCreateBody"] = {
      links: [
        { originalUrl: "https://example.com/retry", title: "Retry me", externalId: "crm-42" },
        { originalUrl: "https://example.com/bulk-new", title: "Bulk new", externalId: "crm-43" },
        { originalUrl: "javascript:alert(1)", title: "Refused" },
      ],
    };
    const r = ok(await alice.POST("/api/links/bulk", { body }), "bulk");
    same([r.created, r.existing, r.refused], [1, 1, 1], "bulk counts");
    same(r.results.map((x) => x.status), ["existing", "created", "refused"], "bulk results");
    const again = ok(await alice.POST("/api/links/bulk", { body: { links: body.links.slice(0, 2) } }), "bulk again");
    same([again.created, again.existing], [0, 2], "bulk retried");
  });

  // -- Tags ----------------------------------------------------------------------------------
  await step("tags: create with a colour, rename, several per link, filter by several, delete", async () => {
    const red = await alice.POST("/api/tags", { body: { name: "Spring", color: "red" } });
    refused(red, 201, "create a tag");
    const spring = ok(red, "tag");
    same([spring.name, spring.color, spring.linkCount], ["Spring", "red", 0], "new tag");
    refused(await alice.POST("/api/tags", { body: { name: "spring" } }), 409, "the same name in another case");
    const renamed = ok(await alice.PATCH("/api/tags/{id}", { params: { path: { id: spring.id } }, body: { name: "Spring 2026", color: "green" } }), "rename");
    same([renamed.name, renamed.color], ["Spring 2026", "green"], "renamed tag");
    const make = (title: string, tags: string[]) => alice.POST("/api/links", { body: { originalUrl: `https://example.com/${title}`, title, tags } });
    const both = ok(await make("tagged-both", ["Spring 2026", "newsletter"]), "tagged both");
    same(both.tags, ["newsletter", "Spring 2026"], "a link's tags, A→Z");
    ok(await make("tagged-spring", ["spring 2026"]), "tagged spring");
    ok(await make("tagged-news", ["Newsletter"]), "tagged news");
    const titles = async (tags: string) => ok(await alice.GET("/api/links", { params: { query: { tags, sort: "title" } } }), `tags=${tags}`).map((l) => l.title);
    same(await titles("spring 2026,newsletter"), ["tagged-both"], "links with both tags");
    same(await titles("Spring 2026"), ["tagged-both", "tagged-spring"], "links with Spring 2026");
    same(await titles("newsletter"), ["tagged-both", "tagged-news"], "links with newsletter");
    const all = ok(await alice.GET("/api/tags"), "list tags");
    same(all.map((t) => [t.name, t.linkCount]), [["newsletter", 2], ["Spring 2026", 2]], "tags and their link counts");
    const stats = ok(await alice.GET("/api/tags/{id}/analytics", { params: { path: { id: spring.id }, query: { days: 7 } } }), "tag analytics");
    same(stats.topLinks.length, 2, "the tag's links in its analytics");
    refused(await bob.DELETE("/api/tags/{id}", { params: { path: { id: spring.id } } }), 404, "bob deletes alice's tag");
    ok(await alice.DELETE("/api/tags/{id}", { params: { path: { id: spring.id } } }), "delete tag");
    same(ok(await alice.GET("/api/links/{id}", { params: { path: { id: both.id } } }), "reread").tags, ["newsletter"], "tags after the delete");
  });

  // -- Export → import, CSV and JSON: every field back ---------------------------------------
  const tricky = [
    { title: "'=already quoted", description: "=1+1" },
    { title: "=SUM(A1:A2)", description: "+ plus" },
    { title: "-minus", description: "@at" },
    { title: "''=two apostrophes", description: "\ttab first" },
    { title: 'Quotes "and", commas', description: "a line\nbreak" },
    { title: "Ünïcödé ✓ 漢字", description: null },
  ];
  // Codes are the instance's, not a user's: a link is exported, deleted, and imported back.
  const owner = await account("client-roundtrip");
  await step("links with formula-like titles, tags and expiry are made for the round trips", async () => {
    const r = ok(
      await owner.POST("/api/links/bulk", {
        body: {
          links: tricky.map((t, i) => ({
            // The last one as a person types it: letters beyond ASCII and a quote (an IRI, kept as entered).
            originalUrl: i === tricky.length - 1 ? `https://example.com/über/${i}?q=ä,b&r="c"` : `https://example.com/round/${i}?q=a,b&r=c`,
            title: t.title,
            description: t.description,
            expiresAt: i % 2 ? "2099-06-01T12:00:00.000Z" : null,
            shortCode: `round-${i}`,
            tags: i % 3 ? ["round", `r${i}`] : [],
          })),
        },
      }),
      "bulk",
    );
    same(r.refused, 0, "refused items");
    const entered = r.results.at(-1);
    assert(entered?.status === "created", "the last link");
    same(entered.link.originalUrl, 'https://example.com/über/5?q=ä,b&r="c"', "a destination kept as entered");
    // Followed through a link of another account: a click would change this one's export.
    const twin = ok(await bob.POST("/api/links", { body: { originalUrl: entered.link.originalUrl, title: "Twin" } }), "twin");
    const visit = await fetch(twin.shortUrl, { redirect: "manual" });
    same(visit.headers.get("location"), "https://example.com/%C3%BCber/5?q=%C3%A4,b&r=%22c%22", "the redirect's escaped form");
  });
  const exported = async (who: typeof alice) => ok(await who.GET("/api/links/export.json"), "export.json").links;
  /** Deletes every link of this account (the list, then DELETE each): their codes are free again. */
  async function deleteAll(who: typeof alice) {
    const links = ok(await who.GET("/api/links", { params: { query: { limit: 1000 } } }), "list");
    for (const l of links) ok(await who.DELETE("/api/links/{id}", { params: { path: { id: l.id } } }), `delete ${l.shortCode}`);
    same(ok(await who.GET("/api/links"), "list").length, 0, "links left after deleting all");
  }
  /** Every link of `before` is in `after`, every field equal but when it was last changed. */
  function compare(before: ExportLink[], after: ExportLink[], what: string) {
    same(after.length, before.length, `${what}: links`);
    const now = new Map(after.map((l) => [l.shortCode, l]));
    for (const link of before) {
      const copy = now.get(link.shortCode);
      assert(copy, `${what}: ${link.shortCode} is missing`);
      const { updatedAt: _a, ...want } = link;
      const { updatedAt: _b, ...got } = copy;
      same(got, want, `${what}: ${link.shortCode}`);
    }
  }
  // Short codes are the instance's: a second account can take the links once the first has
  // deleted them (as a move to another instance would have them).
  const second = await account("client-roundtrip-2");
  const third = await account("client-roundtrip-3");
  await step("CSV: the export, imported into a second account after the first deleted its links, gives every field unchanged", async () => {
    const before = await exported(owner);
    const csv = ok(await owner.GET("/api/links/export.csv", { parseAs: "text" }), "export.csv");
    await deleteAll(owner);
    const report = ok(await second.POST("/api/links/import", { body: csv, bodySerializer: (b: unknown) => b, headers: { "content-type": "text/csv" } }), "import CSV");
    same([report.format, report.skipped, report.imported], ["plain", 0, tricky.length], "the CSV import's format, skipped and imported rows");
    compare(before, await exported(second), "CSV round trip");
  });
  await step("JSON: the JSON export as it is, imported into a third account after the second deleted its links, gives every field unchanged", async () => {
    const json = ok(await second.GET("/api/links/export.json"), "export.json");
    await deleteAll(second);
    const report = ok(await third.POST("/api/links/import", { body: json, headers: { "content-type": "application/json" } }), "import JSON");
    same([report.format, report.skipped, report.imported], ["json", 0, tricky.length], "the JSON import's format, skipped and imported rows");
    compare(json.links, await exported(third), "JSON round trip");
  });

  // -- The real tools' exports ----------------------------------------------------------------
  /** Codes the import refuses on purpose (the app's own words, a script destination), by file. */
  const REFUSED: Record<string, Record<string, string>> = {
    "yourls.csv": { javascript: "originalUrl" },
    "yourls-phpmyadmin.csv": { l: "shortCode" },
    "shlink-web-client.csv": { "api/keys": "shortCode" },
  };
  const columns = (row: Record<string, string>) => ({
    code: row.keyword ?? row.shortCode ?? row["Short Code"] ?? "",
    url: row.url ?? row.longUrl ?? row["Long URL"] ?? "",
    title: row.title ?? row.Title ?? "",
    visits: Number(row.clicks ?? row.visits ?? row["Visits count"]),
    tags: (row.tags ?? row.Tags ?? "").split(/[|,]/).map((t) => t.trim()).filter(Boolean).sort((a, b) => a.localeCompare(b)),
  });
  let n = 0;
  for (const [name, file] of Object.entries(h.fixtures)) {
    await step(`${name}: every link kept (code, destination, redirect, title, tags, visits), only the unsafe refused`, async () => {
      const who = await account(`client-import-${++n}`);
      const report = ok(await who.POST("/api/links/import", { body: file.text, bodySerializer: (b: unknown) => b, headers: { "content-type": "text/csv" } }), "import");
      same(report.rows, file.rows.length, "rows read");
      for (const [i, row] of file.rows.entries()) {
        const want = columns(row);
        const result = report.results[i];
        assert(result && result.row === i + 2, `row ${i + 2}: no result`);
        const refusedField = REFUSED[name]?.[want.code];
        if (refusedField) {
          assert(result.status === "skipped" && result.error.fields?.[refusedField], `${want.code}: expected refused for ${refusedField}, got ${JSON.stringify(result)}`);
          continue;
        }
        assert(result.status === "imported", `${want.code}: ${JSON.stringify(result)}`);
        same(result.shortCode, want.code, `row ${i + 2}'s code`);
        const link = ok(await who.GET("/api/links/lookup", { params: { query: { code: want.code } } }), `lookup ${want.code}`);
        same(link.originalUrl, new URL(want.url).href, `${want.code}'s destination`);
        if (want.title && want.title !== "NULL") same(link.title, want.title, `${want.code}'s title`);
        else assert(link.title !== "NULL" && link.title.length > 0, `${want.code}'s empty title became ${link.title}`);
        same(link.importedClicks, want.visits, `${want.code}'s visits`);
        if (row.tags !== undefined || row.Tags !== undefined) same(link.tags, want.tags, `${want.code}'s tags`);
        // The printed short link keeps working: the short URL redirects where the source did.
        const visit = await fetch(link.shortUrl, { redirect: "manual", headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0" } });
        same([visit.status, visit.headers.get("location")], [302, new URL(want.url).href], `following ${link.shortUrl}`);
      }
      // The next file reuses some codes (the tools' own examples): free them.
      await deleteAll(who);
    });
  }

  await step("brandDomains: a Shlink export's links of the domains named go to the brand tracker, the rest to the Link Tracker", async () => {
    const file = h.fixtures["shlink-web-client.csv"];
    assert(file, "no shlink-web-client.csv");
    const r = ok(
      await alice.POST("/api/links/import", { params: { query: { brandDomains: "s.example.com" } }, body: file.text, bodySerializer: (b: unknown) => b, headers: { "content-type": "text/csv" } }),
      "import",
    );
    same([r.imported, r.skipped], [3, 1], "imported and skipped");
    const brand = ok(await alice.GET("/api/pic-drift-links/lookup", { params: { query: { code: "promo/spring" } } }), "the brand tracker's promo/spring");
    same([brand.originalUrl, brand.importedClicks, brand.tags], ["https://shop.example.com/spring", 318, ["promo", "seasonal"]], "promo/spring");
    refused(await alice.GET("/api/links/lookup", { params: { query: { code: "promo/spring" } } }), 404, "promo/spring on the Link Tracker");
    const main = ok(await alice.GET("/api/links/lookup", { params: { query: { code: "docs/v2/start" } } }), "the default domain's link");
    same(main.originalUrl, "https://docs.example.com/v2/start", "docs/v2/start");
    for (const code of ["promo/spring", "b8"]) {
      const l = ok(await alice.GET("/api/pic-drift-links/lookup", { params: { query: { code } } }), code);
      ok(await alice.DELETE("/api/pic-drift-links/{id}", { params: { path: { id: l.id } } }), `delete ${code}`);
    }
    ok(await alice.DELETE("/api/links/{id}", { params: { path: { id: main.id } } }), "delete docs/v2/start");
  });
  await step("the same code on two Shlink domains sent to two trackers (the brand host is its own): both kept, each redirected on its host", async () => {
    const csv = [
      "createdAt,domain,shortCode,shortUrl,longUrl,title,tags,visits",
      "2024-05-01T09:00:00+00:00,a.example,twin-promo,https://a.example/twin-promo,https://shop.example.com/a,Promo on a,,4",
      "2024-05-02T09:00:00+00:00,b.example,twin-promo,https://b.example/twin-promo,https://shop.example.com/b,Promo on b,,9",
    ].join("\n");
    const r = ok(
      await alice.POST("/api/links/import", { params: { query: { brandDomains: "b.example" } }, body: csv, bodySerializer: (b: unknown) => b, headers: { "content-type": "text/csv" } }),
      "import",
    );
    same([r.imported, r.skipped], [2, 0], "imported and skipped");
    const main = ok(await alice.GET("/api/links/lookup", { params: { query: { code: "twin-promo" } } }), "the Link Tracker's twin-promo");
    const brand = ok(await alice.GET("/api/pic-drift-links/lookup", { params: { query: { code: "twin-promo" } } }), "the brand tracker's twin-promo");
    same([main.originalUrl, main.importedClicks, brand.originalUrl, brand.importedClicks], ["https://shop.example.com/a", 4, "https://shop.example.com/b", 9], "the two links");
    const on = async (host: string) => {
      const visit = await fetch(`${baseUrl}/twin-promo`, { method: "HEAD", redirect: "manual", headers: { host } });
      return [visit.status, visit.headers.get("location")];
    };
    same(await on(new URL(baseUrl).host), [302, "https://shop.example.com/a"], "twin-promo on the app's host");
    same(await on(h.brandHost), [302, "https://shop.example.com/b"], "twin-promo on the brand host");
    ok(await alice.DELETE("/api/links/{id}", { params: { path: { id: main.id } } }), "delete the Link Tracker's twin-promo");
    ok(await alice.DELETE("/api/pic-drift-links/{id}", { params: { path: { id: brand.id } } }), "delete the brand tracker's twin-promo");
  });
  await step("the brand tracker: create, read by id, look up by code, PATCH; its code is not the Link Tracker's", async () => {
    const made = await alice.POST("/api/pic-drift-links", { body: { originalUrl: "https://example.com/brand", title: "Brand", shortCode: "brand-client" } });
    refused(made, 201, "create a brand link");
    const link = ok(made, "brand link");
    const id = { path: { id: link.id } };
    same(ok(await alice.GET("/api/pic-drift-links/{id}", { params: id }), "by id").shortCode, "brand-client", "the brand link by id");
    same(ok(await alice.GET("/api/pic-drift-links/lookup", { params: { query: { code: "brand-client" } } }), "lookup").id, link.id, "the brand link by code");
    const patched = ok(await alice.PATCH("/api/pic-drift-links/{id}", { params: id, body: { title: "Brand, patched" } }), "patch");
    same([patched.title, patched.originalUrl], ["Brand, patched", "https://example.com/brand"], "after PATCH");
    refused(await alice.GET("/api/links/lookup", { params: { query: { code: "brand-client" } } }), 404, "the brand code on the Link Tracker");
    refused(await bob.GET("/api/pic-drift-links/{id}", { params: id }), 404, "bob reads the brand link");
  });

  // -- A date-ranged timeseries ----------------------------------------------------------------
  await step("timeseries: from/to/tz by hour and by day count the clicks made; a bad parameter is 400", async () => {
    const link = ok(await alice.POST("/api/links", { body: { originalUrl: "https://example.com/series", title: "Series" } }), "create");
    for (let i = 0; i < 3; i++) {
      const r = await fetch(link.shortUrl, { redirect: "manual", headers: { "user-agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36" } });
      same(r.status, 302, "a click");
    }
    const clickedAt = Date.now();
    const tz = "Asia/Kolkata"; // a half-hour offset: local days are not UTC days
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: tz }).format(new Date());
    const yesterday = new Intl.DateTimeFormat("en-CA", { timeZone: tz }).format(new Date(Date.now() - 86_400_000));
    const read = (query: paths["/api/links/{id}/analytics"]["get"]["parameters"]["query"]) => alice.GET("/api/links/{id}/analytics", { params: { path: { id: link.id }, query } });
    let hourly = ok(await read({ from: today, to: today, tz, interval: "hour" }), "hourly");
    // Clicks are written off the redirect's path: wait until they are counted.
    for (let i = 0; i < 50 && hourly.series.total < 3; i++) {
      await new Promise((r) => setTimeout(r, 100));
      hourly = ok(await read({ from: today, to: today, tz, interval: "hour" }), "hourly");
    }
    same([hourly.series.interval, hourly.series.tz, hourly.series.total], ["hour", tz, 3], "the hourly series");
    assert(hourly.series.points.length >= 23 && hourly.series.points.length <= 25, `hours in a day: ${hourly.series.points.length}`);
    same(hourly.series.points.reduce((s, p) => s + p.count, 0), 3, "the hourly points' sum");
    const daily = ok(await read({ from: yesterday, to: today, tz, interval: "day" }), "daily");
    same([daily.series.interval, daily.series.points.length, daily.series.total], ["day", 2, 3], "the daily series over two days");
    // The roll-ups count per UTC hour, and an hour counts in the local day its start falls in
    // (series.ts): in the half hour after Kolkata's midnight the clicks' hour began yesterday.
    const hourBegan = new Intl.DateTimeFormat("en-CA", { timeZone: tz }).format(new Date(Math.floor(clickedAt / 3_600_000) * 3_600_000));
    same(daily.series.points.map((p) => p.count), hourBegan === today ? [0, 3] : [3, 0], "clicks per day");
    const ranged = ok(await read({ from: `${yesterday}T00:00:00+05:30`, to: new Date(Date.now() + 3_600_000).toISOString(), tz: "UTC" }), "date-times");
    same(ranged.series.total, 3, "a date-time range's total");
    // Wrong parameters are a documented 400, never quietly replaced by a default.
    refused(await read({ days: 8 as 7 }), 400, "days=8");
    refused(await read({ interval: "week" as "day" }), 400, "interval=week");
    refused(await read({ from: today, tz: "Mars/Olympus" }), 400, "an unknown time zone");
    refused(await read({ pageSize: 1000 }), 400, "pageSize=1000");
  });

  // -- Smart links (issue 24) ---------------------------------------------------------------------
  await step("smart links: password, rules, limit and split saved and read back; the simulator explains", async () => {
    const link = ok(await alice.POST("/api/links", { body: { originalUrl: "https://example.com/smart", title: "Smart" } }), "create");
    const id = { path: { id: link.id } };
    const settings: Schemas["SmartSettingsBody"] = {
      password: "open sesame 42",
      maxClicks: 1000,
      fallbackUrl: "https://example.com/sold-out",
      rules: [
        { name: "iPhone", when: { os: ["ios"] }, url: "https://apps.apple.com/app/id1" },
        { name: "Italian", when: { language: ["it"] }, url: "https://example.com/it" },
      ],
      split: { variants: [{ name: "A", url: "https://example.com/a", weight: 3 }, { name: "B", url: "https://example.com/b", weight: 1 }], sticky: true },
    };
    const saved = ok(await alice.PUT("/api/links/{id}/smart", { params: id, body: settings }), "save");
    same([saved.hasPassword, saved.maxClicks, saved.fallbackUrl, saved.rules.map((r) => r.name), saved.split?.variants.map((v) => v.weight)], [true, 1000, "https://example.com/sold-out", ["iPhone", "Italian"], [3, 1]], "saved settings");
    same(ok(await alice.GET("/api/links/{id}/smart", { params: id }), "read"), saved, "settings read back");
    const view = ok(await alice.GET("/api/links/{id}", { params: id }), "the link");
    same(view.smart, { protected: true, limited: true, spent: false, ruled: true, split: true }, "the link's smart summary");
    const sim = async (body: Schemas["SimulateBody"]) => ok(await alice.POST("/api/links/{id}/simulate", { params: id, body }), "simulate");
    const iphone = await sim({ os: "ios", device: "mobile", language: "en-US" });
    same([iphone.destination, iphone.passwordFirst], ["https://apps.apple.com/app/id1", true], "an iPhone visitor");
    same(iphone.steps[0]?.matched, true, "the first rule matched");
    same((await sim({ os: "windows", language: "it-IT,it;q=0.9" })).destination, "https://example.com/it", "an Italian visitor");
    const other = await sim({ os: "linux", language: "en", visitorId: "v-1" });
    assert(["https://example.com/a", "https://example.com/b"].includes(other.destination ?? ""), `a split visitor went to ${other.destination}`);
    same((await sim({ os: "linux", language: "en", visitorId: "v-1" })).destination, other.destination, "a sticky visitor's second visit");
    // The visitor meets the password page, not the destination.
    const visit = await fetch(link.shortUrl, { redirect: "manual" });
    assert(visit.status !== 302, `a protected link redirected without its password (${visit.status})`);
    // Hostile and someone else's: 400, 404, nothing changed.
    refused(await alice.PUT("/api/links/{id}/smart", { params: id, body: { password: "abc" } }), 400, "a 3-character password");
    refused(await bob.PUT("/api/links/{id}/smart", { params: id, body: { maxClicks: 1 } }), 404, "bob's settings on alice's link");
    refused(await bob.POST("/api/links/{id}/simulate", { params: id, body: { os: "ios" } }), 404, "bob simulates alice's link");
    same(ok(await alice.GET("/api/links/{id}/smart", { params: id }), "reread").maxClicks, 1000, "the limit after bob's attempt");
    // Cleared: a plain link again.
    const cleared = ok(await alice.PUT("/api/links/{id}/smart", { params: id, body: { password: null, rules: [], split: null, maxClicks: null } }), "clear");
    same([cleared.hasPassword, cleared.rules.length, cleared.split, cleared.maxClicks], [false, 0, null, null], "cleared settings");
    const plain = await fetch(link.shortUrl, { redirect: "manual" });
    same([plain.status, plain.headers.get("location")], [302, "https://example.com/smart"], "the plain link's redirect");
  });
  await step("smart links: each click records the rule or variant that sent it, and the analytics count them", async () => {
    const link = ok(await alice.POST("/api/links", { body: { originalUrl: "https://example.com/ruled", title: "Ruled" } }), "create");
    const id = { path: { id: link.id } };
    ok(await alice.PUT("/api/links/{id}/smart", { params: id, body: { rules: [{ name: "iPhone", when: { os: ["ios"] }, url: "https://apps.apple.com/app/id2" }] } }), "save a rule");
    const iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
    const desktop = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";
    const go = (ua: string) => fetch(link.shortUrl, { redirect: "manual", headers: { "user-agent": ua } }).then((r) => r.headers.get("location"));
    same([await go(iphone), await go(iphone), await go(desktop)], ["https://apps.apple.com/app/id2", "https://apps.apple.com/app/id2", "https://example.com/ruled"], "where each visitor went");
    let routes: { name: string; count: number }[] = [];
    for (let i = 0; i < 50; i++) {
      const report = ok(await alice.GET("/api/links/{id}/analytics", { params: { ...id, query: { days: 7 } } }), "analytics");
      routes = (report.smart?.routes ?? []).map((r) => ({ name: r.name, count: r.count }));
      if (routes.reduce((n, r) => n + r.count, 0) >= 3) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    same(routes.sort((a, b) => a.name.localeCompare(b.name)), [{ name: "Default destination", count: 1 }, { name: "Rule 1: iPhone", count: 2 }], "clicks per rule");
  });
  await step("UTM templates: save, list, rename, delete; another user's is 404", async () => {
    const made = await alice.POST("/api/utm-templates", { body: { name: "Newsletter", source: "newsletter", medium: "email", campaign: "spring" } });
    refused(made, 201, "save a template");
    const template = ok(made, "template");
    same([template.source, template.medium, template.campaign, template.term], ["newsletter", "email", "spring", ""], "the template");
    same(ok(await alice.GET("/api/utm-templates"), "list").map((t) => t.name), ["Newsletter"], "alice's templates");
    same(ok(await bob.GET("/api/utm-templates"), "bob's list").length, 0, "bob's templates");
    const renamed = ok(await alice.PUT("/api/utm-templates/{id}", { params: { path: { id: template.id } }, body: { name: "Newsletter (spring)", source: "newsletter", medium: "email", campaign: "spring" } }), "rename");
    same([renamed.id, renamed.name, renamed.campaign], [template.id, "Newsletter (spring)", "spring"], "the renamed template");
    refused(await bob.PUT("/api/utm-templates/{id}", { params: { path: { id: template.id } }, body: { name: "Mine", source: "x" } }), 404, "bob renames alice's template");
    refused(await bob.DELETE("/api/utm-templates/{id}", { params: { path: { id: template.id } } }), 404, "bob deletes alice's template");
    ok(await alice.DELETE("/api/utm-templates/{id}", { params: { path: { id: template.id } } }), "delete");
    same(ok(await alice.GET("/api/utm-templates"), "list").length, 0, "templates after the delete");
  });

  await step("every answer fitted the document", async () => {
    assert(checked > 100, `only ${checked} answers were checked`);
  });
  return checked;
}
