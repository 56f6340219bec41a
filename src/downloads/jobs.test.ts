// Downloads on the reader thread (issue 21): the same bytes as on the request thread, on both
// backends; a client that leaves mid-way frees the thread for the next download.
import { expect, test } from "bun:test";
import { setup } from "../test/helpers";
import { gunzipSync } from "node:zlib";
import { gzipped, gzipStream } from "../shared/gzipStream";
import { download, runDownload, type DownloadJob } from "./jobs";

const t = await setup();
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");

// More links than one batch (1,000) and one slice (250), with text that needs quoting.
for (let at = 0; at < 2600; at += 1000) {
  const links = Array.from({ length: Math.min(1000, 2600 - at) }, (_, i) => ({
    originalUrl: `https://example.com/p/${at + i}?q="x",y`,
    title: i % 7 === 0 ? `=SUM(A${i}) «ünïcode» 🎉` : `Item ${at + i}, "quoted"`,
  }));
  const r = await t.call("POST", "/api/links/bulk", { body: { links }, cookie: alice.cookie });
  expect(r.json.created).toBe(links.length);
}
await t.call("POST", "/api/links", { body: { originalUrl: "https://example.com/bob", shortCode: "bobs-link" }, cookie: bob.cookie });
const clicked = (await t.call("GET", "/api/links?limit=1", { cookie: alice.cookie })).json[0] as { id: number; shortCode: string };
for (let i = 0; i < 1200; i++) await t.call("GET", `/${clicked.shortCode}`, { headers: { "user-agent": `Agent ${i % 5}`, referer: i % 3 ? "https://news.example/x" : "" } });
await t.settle();

const job = (format: "csv" | "json"): DownloadJob => ({
  kind: "links",
  userId: alice.user.id,
  tracker: "main",
  format,
  shortBaseUrl: t.config.shortBaseUrl,
  brandBaseUrl: t.config.brandBaseUrl,
  exportedAt: "2026-11-26T00:00:00.000Z",
});
const bytes = async (s: ReadableStream<Uint8Array>) => new Uint8Array(await new Response(s).arrayBuffer());

test("links (CSV and JSON) and clicks (CSV): the reader thread's bytes are the request thread's, every row once", async () => {
  expect(t.database.reader).not.toBeNull();
  for (const j of [job("csv"), job("json"), { kind: "clicks", linkId: clicked.id } as const]) {
    const there = await bytes(download(t.database, j));
    const here = await bytes(runDownload(t.database, j));
    expect(there.length).toBeGreaterThan(10_000);
    expect(Buffer.from(there).equals(Buffer.from(here))).toBe(true);
  }
  const json = JSON.parse(new TextDecoder().decode(await bytes(download(t.database, job("json"))))) as { links: { shortCode: string; title: string }[] };
  expect(json.links).toHaveLength(2600);
  expect(new Set(json.links.map((l) => l.shortCode)).size).toBe(2600);
  expect(json.links.some((l) => l.shortCode === "bobs-link")).toBe(false);
  expect(json.links.some((l) => l.title.includes("🎉"))).toBe(true);
  const csv = new TextDecoder().decode(await bytes(download(t.database, { kind: "clicks", linkId: clicked.id })));
  expect(csv.trim().split("\r\n")).toHaveLength(1201);
});

test("a consumer that keeps every chunk it read keeps the bytes it read: the thread's buffers go back only once copied", async () => {
  for (const j of [job("json"), { kind: "clicks", linkId: clicked.id } as const]) {
    const kept: Uint8Array[] = [];
    for await (const chunk of download(t.database, j) as unknown as AsyncIterable<Uint8Array>) kept.push(chunk);
    expect(kept.length).toBeGreaterThan(2);
    const here = await bytes(runDownload(t.database, j));
    expect(Buffer.concat(kept).equals(Buffer.from(here))).toBe(true);
  }
});

test("served by Bun.serve to a slow client, identity and gzip: the bytes whole, though the thread's buffers go back and carry later chunks", async () => {
  // Gzipped by the thread (gzipped() asks the download for its twin) when the client takes it.
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 30,
    fetch: (req) =>
      req.headers.get("accept-encoding") === "gzip"
        ? new Response(gzipped(download(t.database, job("json"))), { headers: { "content-encoding": "gzip" } })
        : new Response(download(t.database, job("json"))),
  });
  try {
    const whole = Buffer.from(await bytes(runDownload(t.database, job("json"))));
    for (const encoding of ["identity", "gzip"]) {
      const r = await fetch(`http://127.0.0.1:${server.port}/`, { headers: { "accept-encoding": encoding } });
      const got: Uint8Array[] = [];
      for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
        got.push(chunk.slice());
        await Bun.sleep(2);
      }
      expect(Buffer.concat(got).equals(whole)).toBe(true);
    }
  } finally {
    server.stop(true);
  }
});

test("gzipped on the reader thread: the bytes gzipStream makes here, every time (no header spent by a transfer), and whole through the route", async () => {
  for (const j of [job("csv"), job("json"), { kind: "clicks", linkId: clicked.id } as const]) {
    const here = await bytes(gzipStream(runDownload(t.database, j)));
    for (let round = 0; round < 2; round++) {
      const there = await bytes(gzipped(download(t.database, j)));
      expect(there.length).toBeGreaterThan(1000);
      expect(Buffer.from(there).equals(Buffer.from(here))).toBe(true);
    }
    expect(Buffer.from(gunzipSync(here)).equals(Buffer.from(await bytes(runDownload(t.database, j))))).toBe(true);
  }
  const r = await t.app.handle(new Request("http://localhost:3000/api/links/export.json", { headers: { host: "localhost:3000", cookie: alice.cookie, "accept-encoding": "gzip" } }));
  expect(r.headers.get("content-encoding")).toBe("gzip");
  const body = JSON.parse(gunzipSync(await bytes(r.body!)).toString("utf8")) as { links: unknown[] };
  expect(body.links).toHaveLength(2600);
}, 30_000);

test("a download dropped after its first chunk ends on the thread; the next ones still stream whole; 'done' runs once either way", async () => {
  let done = 0;
  const reader = download(t.database, job("csv"), () => done++).getReader();
  expect((await reader.read()).done).toBe(false);
  await reader.cancel();
  expect(done).toBe(1);
  const whole = await bytes(download(t.database, job("json"), () => done++));
  expect(JSON.parse(new TextDecoder().decode(whole)).links).toHaveLength(2600);
  expect(done).toBe(2);
  // Through the route: the per-user export slot is free again after a dropped download.
  const first = await t.app.handle(new Request("http://localhost:3000/api/links/export.csv", { headers: { host: "localhost:3000", cookie: alice.cookie } }));
  await first.body!.getReader().cancel();
  expect((await t.call("GET", "/api/links/export.json", { cookie: alice.cookie })).status).toBe(200);
});

test("reports read on the reader thread see a write committed just before", async () => {
  const made = await t.call("POST", "/api/links", { body: { originalUrl: "https://example.com/fresh", shortCode: "fresh-one", title: "Fresh" }, cookie: alice.cookie });
  expect(made.status).toBe(201);
  const page = await t.call("GET", "/api/links?limit=1&q=fresh", { cookie: alice.cookie });
  expect(page.json.map((l: { shortCode: string }) => l.shortCode)).toEqual(["fresh-one"]);
  await t.call("GET", "/fresh-one");
  await t.settle();
  const report = await t.call("GET", `/api/links/${made.json.id}/analytics`, { cookie: alice.cookie });
  expect(report.json.clickCount).toBe(1);
  expect(report.json.clicks).toHaveLength(1);
});
