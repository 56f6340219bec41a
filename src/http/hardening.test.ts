// Issue 11: what anyone on the internet can send. Every request of up to 1 MiB is answered
// with a 4xx in the one error shape, quickly and without the memory exploding; bodies are
// JSON or refused (415); sign-in is checked before bodies; malformed escapes name nothing;
// every kind of response carries the security headers.
import { afterAll, describe, expect, spyOn, test } from "bun:test";
import { ORIGIN, PASSWORD, setup } from "../test/helpers";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH, MAX_JSON_VALUES, NOT_JSON_TYPE_MESSAGE, TOO_DEEP_MESSAGE, TOO_LARGE_MESSAGE, TOO_MANY_VALUES_MESSAGE, jsonShapeProblem } from "./bodyLimit";
import { BASE_SECURITY_HEADERS } from "./headers";
import { FFMPEG_WORKER_URL } from "../shared/ffmpegPaths";

const t = await setup();
const alice = await t.signUp("hardalice");
const topic = (await t.call("POST", "/api/topics", { cookie: alice.cookie, body: { name: "Hardening" } })).json as { id: number; linkSlug: string };
const link = (await t.call("POST", "/api/links", { cookie: alice.cookie, body: { originalUrl: "https://example.com/h", title: "H", shortCode: "hard1" } })).json as { id: number };

const server = t.app.listen({ port: 0, hostname: "127.0.0.1" }).server!;
const base = `http://127.0.0.1:${server.port}`;
afterAll(() => server.stop(true));

const json = { "content-type": "application/json" };
const deepArrays = "[".repeat(20_000) + "]".repeat(20_000);
const deepObjects = '{"a":'.repeat(8_000) + "1" + "}".repeat(8_000);
/** ~1 MiB of one shape, just under the limit. */
const fill = (open: string, item: string, close: string) => open + Array(Math.floor((MAX_BODY_BYTES - 64) / (item.length + 1))).fill(item).join(",") + close;
const wideArray = fill('{"username":[', "1", "]}");
const wideObject = fill("{", '"k":{}', "}").replace(/"k"/g, () => `"${Math.random().toString(36).slice(2, 6)}"`).slice(0, MAX_BODY_BYTES - 64);
const manyObjects = fill("[", "{}", "]");
const longString = JSON.stringify({ username: "x".repeat(MAX_BODY_BYTES - 64), password: "p" });
const deepInString = JSON.stringify({ name: "[".repeat(50_000) });
const brokenUtf8 = new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);

/** `status` is what every route answers; a body a route may legitimately accept says so (`or200`). */
type Attack = { name: string; body: string | Uint8Array<ArrayBuffer>; status: number; message?: string; or200?: boolean };
const attacks: Attack[] = [
  { name: "arrays nested 20,000 deep", body: deepArrays, status: 400, message: TOO_DEEP_MESSAGE },
  { name: "objects nested 8,000 deep", body: deepObjects, status: 400, message: TOO_DEEP_MESSAGE },
  { name: `nesting one past the limit (${MAX_JSON_DEPTH + 1})`, body: "[".repeat(MAX_JSON_DEPTH + 1) + "]".repeat(MAX_JSON_DEPTH + 1), status: 400, message: TOO_DEEP_MESSAGE },
  { name: "a 1 MB array where a string belongs", body: wideArray, status: 400, message: TOO_MANY_VALUES_MESSAGE },
  { name: "an object with ~100,000 keys", body: wideObject, status: 400, message: TOO_MANY_VALUES_MESSAGE },
  { name: "~350,000 empty objects", body: manyObjects, status: 400, message: TOO_MANY_VALUES_MESSAGE },
  // Routes whose fields are all optional ignore keys they do not know (PUT /api/topics/:id).
  { name: `${MAX_JSON_VALUES} values, just within the count`, body: `{"a":[${Array(MAX_JSON_VALUES - 2).fill(0).join(",")}]}`, status: 400, or200: true },
  { name: "a 1 MB string", body: longString, status: 400, or200: true },
  { name: "bad UTF-8", body: brokenUtf8, status: 400 },
  { name: "truncated JSON", body: '{"username": "a",', status: 400, message: "The request body is not valid JSON" },
];
const bodyRoutes: { method: string; path: string; signedIn: boolean }[] = [
  { method: "POST", path: "/api/login", signedIn: false },
  { method: "POST", path: "/api/register", signedIn: false },
  { method: "POST", path: "/api/topics", signedIn: true },
  { method: "PUT", path: `/api/topics/${topic.id}`, signedIn: true },
  { method: "POST", path: "/api/links", signedIn: true },
  { method: "PUT", path: `/api/pic-drift-links/${link.id}`, signedIn: true },
  { method: "POST", path: `/api/hardalice/${topic.linkSlug}/titles`, signedIn: true },
];

const CHUNK = 64 * 1024;
/** A body of `total` bytes with no declared length (sent chunked), counting what was pulled. */
function chunked(total: number) {
  const chunk = new TextEncoder().encode(" ".repeat(CHUNK));
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent >= total) return c.close();
      sent += CHUNK;
      c.enqueue(chunk);
    },
  });
  return { stream, sent: () => sent };
}

const mb = () => process.memoryUsage().rss / 2 ** 20;

describe("a budget for every request", () => {
  for (const route of bodyRoutes)
    test(`${route.method} ${route.path}: hostile bodies get a quick 4xx in the one shape`, async () => {
      const before = mb();
      const slow: string[] = [];
      for (const a of attacks) {
        const started = performance.now();
        const r = await t.app.handle(
          new Request(`${ORIGIN}${route.path}`, { method: route.method, headers: { ...json, host: "localhost:3000", ...(route.signedIn ? { cookie: alice.cookie } : {}) }, body: a.body }),
        );
        const ms = performance.now() - started;
        const body = await r.json();
        const status = a.or200 && r.status === 200 ? 200 : a.status;
        expect({ attack: a.name, status: r.status }).toEqual({ attack: a.name, status });
        if (status !== 200) expect(typeof body.error.code).toBe("string");
        if (a.message) expect(body.error.message).toBe(a.message);
        // Short answers: the error never echoes the input back.
        expect(JSON.stringify(body).length).toBeLessThan(600);
        // Before the bounds, the deep bodies took 0.5–5 s each.
        if (ms > 250) slow.push(`${a.name}: ${Math.round(ms)} ms`);
      }
      expect(slow).toEqual([]);
      // Before: ~2.5 GB for the 40 kB deep array alone.
      expect(mb() - before).toBeLessThan(300);
    });

  test("the shape scan ignores brackets and commas inside strings, and escaped quotes", () => {
    const shape = (v: unknown, depth: number, values = 1000) => jsonShapeProblem(new TextEncoder().encode(typeof v === "string" ? v : JSON.stringify(v)), depth, values);
    expect(shape(deepInString, 3)).toBeNull();
    expect(shape({ a: '\\"[[[[', b: [[1]] }, 3)).toBeNull();
    expect(shape({ a: '\\"', b: [[[1]]] }, 3)).toBe("depth");
    expect(shape("[[[]]]", 3)).toBeNull();
    expect(shape("[[[[]]]]", 3)).toBe("depth");
    expect(shape({ a: ",".repeat(5000) }, 3, 10)).toBeNull();
    expect(shape([1, 2, 3, 4, 5, 6, 7, 8, 9], 3, 10)).toBeNull();
    expect(shape([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 3, 10)).toBe("values");
  });

  test("brackets inside a string are text, not nesting: a 50,000-bracket topic name is just too long", async () => {
    const r = await t.call("POST", "/api/topics", { cookie: alice.cookie, raw: deepInString });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toBe("Topic name must be less than 50 characters");
  });

  test("a body sent without a length (chunked) is cut off at 1 MB: 413, nothing written", async () => {
    const topics = await t.count("topics");
    const body = chunked(2 * MAX_BODY_BYTES);
    const r = await t.app.handle(
      new Request(`${ORIGIN}/api/topics`, { method: "POST", headers: { ...json, host: "localhost:3000", cookie: alice.cookie }, body: body.stream, duplex: "half" } as RequestInit),
    );
    expect(r.status).toBe(413);
    expect(await r.json()).toEqual({ error: { code: "PAYLOAD_TOO_LARGE", message: TOO_LARGE_MESSAGE } });
    // It stopped reading at the limit (plus the chunk that crossed it).
    expect(body.sent()).toBeLessThanOrEqual(MAX_BODY_BYTES + 3 * CHUNK);
    expect(await t.count("topics")).toBe(topics);
  });

  test("through a listening server: a chunked 2 MB body gets 413, and the server keeps answering", async () => {
    const body = chunked(2 * MAX_BODY_BYTES);
    const r = await fetch(`${base}/api/login`, { method: "POST", headers: json, body: body.stream, duplex: "half" } as RequestInit);
    expect(r.status).toBe(413);
    expect((await r.json()).error.code).toBe("PAYLOAD_TOO_LARGE");
    const health = await fetch(`${base}/api/health`);
    expect(health.status).toBe(200);
  });
});

describe("bodies are JSON", () => {
  const cases: { name: string; type: string | null; body: string; status: number }[] = [
    { name: "form-encoded", type: "application/x-www-form-urlencoded", body: `username=hardalice&password=${encodeURIComponent(PASSWORD)}`, status: 415 },
    { name: "multipart", type: "multipart/form-data; boundary=x", body: `--x\r\nContent-Disposition: form-data; name="username"\r\n\r\nhardalice\r\n--x--\r\n`, status: 415 },
    { name: "JSON sent as text/plain", type: "text/plain", body: JSON.stringify({ username: "hardalice", password: PASSWORD }), status: 415 },
    { name: "no content type", type: null, body: JSON.stringify({ username: "hardalice", password: PASSWORD }), status: 415 },
    { name: "application/json with a charset", type: "application/json; charset=utf-8", body: JSON.stringify({ username: "hardalice", password: PASSWORD }), status: 200 },
    { name: "a +json type", type: "application/vnd.api+json", body: JSON.stringify({ username: "hardalice", password: PASSWORD }), status: 200 },
  ];
  for (const c of cases)
    test(`${c.name} → ${c.status}`, async () => {
      const headers: Record<string, string> = { host: "localhost:3000" };
      const req = new Request(`${ORIGIN}/api/login`, { method: "POST", headers, body: new TextEncoder().encode(c.body) });
      if (c.type) req.headers.set("content-type", c.type);
      else req.headers.delete("content-type");
      const r = await t.app.handle(req);
      expect(r.status).toBe(c.status);
      if (c.status === 415) expect(await r.json()).toEqual({ error: { code: "UNSUPPORTED_MEDIA_TYPE", message: NOT_JSON_TYPE_MESSAGE } });
    });

  test("routes that take no body still work with none, and refuse a form body", async () => {
    const { cookie } = await t.signUp("hardbodyless");
    expect((await t.call("POST", "/api/notifications/read-all", { cookie })).status).toBe(200);
    const form = await t.call("POST", "/api/notifications/read-all", { cookie, raw: "a=b", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(form.status).toBe(415);
    expect((await t.call("POST", "/api/logout", { cookie })).status).toBe(200);
  });
});

describe("sign-in is checked before the body", () => {
  const broken: { name: string; raw: string; type?: string }[] = [
    { name: "nested 20,000 deep", raw: deepArrays },
    { name: "not JSON", raw: "{oops" },
    { name: "form-encoded", raw: "name=x", type: "application/x-www-form-urlencoded" },
    { name: "fields of the wrong type", raw: JSON.stringify({ name: 42, fromIndex: "x" }) },
    { name: "empty", raw: "" },
  ];
  const routes = bodyRoutes.filter((r) => r.signedIn);
  for (const b of broken)
    test(`anonymous, ${b.name}: 401 on every signed-in route`, async () => {
      const answers = [];
      for (const r of routes) {
        const res = await t.call(r.method, r.path, { raw: b.raw, headers: b.type ? { "content-type": b.type } : {} });
        answers.push(`${r.method} ${r.path} ${res.status} ${res.json?.error?.code}`);
      }
      expect(answers).toEqual(routes.map((r) => `${r.method} ${r.path} 401 UNAUTHORIZED`));
    });

  test("a cross-site request is still refused first (403), signed in or not", async () => {
    const r = await t.call("POST", "/api/topics", { raw: deepArrays, headers: { origin: "https://evil.example" } });
    expect(r.status).toBe(403);
  });
});

describe("every path decodes safely", () => {
  const paths = [
    "/%ff",
    "/%",
    "/abc%ZZ",
    "/%E0%A4%A",
    "/l/%ff",
    "/r/%ff",
    "/l/%",
    "/api/links/redirect/%ff",
    "/api/topic/%ff/x",
    "/api/topic/hardalice/%ff",
    "/api/invites/%ff",
    `/api/topics/%ff`,
    `/api/links/%ff/analytics`,
    "/hardalice/%ff",
    "/a%ff/b/c",
    "/share/%ff",
  ];
  // Under /api the one error shape; elsewhere the static 'Page Not Found' page (no app bundle).
  const check = (p: string, status: number, body: string) => {
    expect(status).toBe(404);
    if (p.startsWith("/api/")) expect(JSON.parse(body).error.code).toBe("NOT_FOUND");
    else {
      expect(body).toContain("<h1>Page Not Found</h1>");
      expect(body).toContain("The page you&#39;re looking for doesn&#39;t exist.");
      expect(body).not.toContain("chunk-");
    }
  };

  test("through the app: 404 in the one shape, and nothing logged", async () => {
    const logged = spyOn(console, "error");
    try {
      for (const p of paths) {
        const r = await t.call("GET", p, { cookie: alice.cookie });
        expect({ p, status: r.status }).toEqual({ p, status: 404 });
        check(p, r.status, r.text);
      }
      const post = await t.call("POST", "/api/topics/%ff/reorder", { cookie: alice.cookie, body: { fromIndex: 0, toIndex: 1 } });
      expect(post.status).toBe(404);
      expect(logged).not.toHaveBeenCalled();
    } finally {
      logged.mockRestore();
    }
  });

  test("through the listening server (the redirect fast lane first): the same 404s", async () => {
    for (const p of paths) {
      const r = await fetch(`${base}${p}`, { headers: { cookie: alice.cookie }, redirect: "manual" });
      expect({ p, status: r.status }).toEqual({ p, status: 404 });
      check(p, r.status, await r.text());
    }
    // Well-formed escapes still work: the fast lane's redirect and a page.
    expect((await fetch(`${base}/hard%31`, { redirect: "manual" })).status).toBe(302);
    expect((await fetch(`${base}/caf%C3%A9/topic`)).status).toBe(200);
  });
});

describe("security headers on every kind of response", () => {
  const kinds: { name: string; method?: string; path: string; status: number; cookie?: boolean; body?: string; type?: string; origin?: string; csp?: boolean }[] = [
    { name: "the web app's HTML", path: "/", status: 200, csp: true },
    { name: "a chunk of the web app", path: "CHUNK", status: 200, csp: true },
    { name: "API JSON 200", path: "/api/health", status: 200 },
    { name: "API 400", method: "POST", path: "/api/login", body: "{}", status: 400 },
    { name: "API 401", path: "/api/user", status: 401 },
    { name: "API 403", method: "POST", path: "/api/logout", origin: "https://evil.example", status: 403 },
    { name: "API 404", path: "/api/no-such-thing", status: 404 },
    { name: "API 413", method: "POST", path: "/api/login", body: "x".repeat(MAX_BODY_BYTES + 1), status: 413 },
    { name: "API 415", method: "POST", path: "/api/login", body: "a=b", type: "application/x-www-form-urlencoded", status: 415 },
    { name: "a redirect", path: "/hard1", status: 302 },
    { name: "the unknown-code page (404)", path: "/zz9unknownhard", status: 404, csp: true },
    { name: "the expired-link page (410)", path: "/hardgone", status: 410, csp: true },
    { name: "a malformed path (404)", path: "/%ff", status: 404 },
    { name: "the CSV download", path: `/api/links/${link.id}/clicks.csv`, cookie: true, status: 200 },
    { name: "the vCard download", path: `/api/topics/${topic.id}/contact.vcf`, cookie: true, status: 200 },
    { name: "a vendor file", path: FFMPEG_WORKER_URL, status: 200, csp: true },
  ];

  test("each kind carries nosniff, DENY and a referrer policy (and pages a CSP)", async () => {
    const expiring = { originalUrl: "https://example.com/e", title: "E", shortCode: "hardgone", expiresAt: new Date(Date.now() + 200).toISOString() };
    expect((await t.call("POST", "/api/links", { cookie: alice.cookie, body: expiring })).status).toBe(201);
    await Bun.sleep(250);
    const page = await t.call("GET", "/");
    const chunk = page.text.match(/(?:src|href)="(\/chunk-[^"]+)"/)![1]!;
    const missing: string[] = [];
    for (const k of kinds) {
      const headers: Record<string, string> = {};
      if (k.cookie) headers.cookie = alice.cookie;
      if (k.origin) headers.origin = k.origin;
      if (k.type) headers["content-type"] = k.type;
      const r = await t.call(k.method ?? "GET", k.path === "CHUNK" ? chunk : k.path, { raw: k.body, headers });
      if (r.status !== k.status) missing.push(`${k.name}: status ${r.status}`);
      for (const [name, value] of Object.entries(BASE_SECURITY_HEADERS)) {
        // A redirect keeps the full referrer for the destination on purpose.
        if (name === "referrer-policy" && k.status === 302) continue;
        if (r.headers.get(name) !== value) missing.push(`${k.name}: ${name}=${r.headers.get(name)}`);
      }
      if (k.status === 302 && r.headers.get("referrer-policy") !== "unsafe-url") missing.push(`${k.name}: referrer-policy`);
      if (k.csp && !r.headers.get("content-security-policy")?.includes("frame-ancestors 'none'")) missing.push(`${k.name}: no CSP`);
    }
    expect(missing).toEqual([]);
  });

  test("the 410 page's policy allows its own style and no script", async () => {
    const r = await t.call("GET", "/hardgone");
    expect(r.status).toBe(410);
    const csp = r.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("script-src");
    expect(csp).not.toContain("unsafe-inline");
    const style = r.text.match(/<style>([\s\S]*?)<\/style>/)?.[1];
    if (style) expect(csp).toContain(`'sha256-${new Bun.CryptoHasher("sha256").update(style).digest("base64")}'`);
  });
});

describe("names refuse control characters", () => {
  const controls = ["\u0000", "\u0007", "\u001b[31m", "\u007f", "\u0085", "\u009b", "\n"];
  const fields: { name: string; method: string; path: () => string; body: (bad: string) => Record<string, unknown>; message: string; field: string }[] = [
    { name: "username", method: "POST", path: () => "/api/register", body: (bad) => ({ username: `ctl${bad}user`, password: PASSWORD, email: "ctl@example.test" }), message: "Username must not contain control characters", field: "username" },
    { name: "topic name", method: "POST", path: () => "/api/topics", body: (bad) => ({ name: `Topic${bad}name` }), message: "Topic name must not contain control characters", field: "name" },
    { name: "topic rename", method: "PUT", path: () => `/api/topics/${topic.id}`, body: (bad) => ({ name: `Topic${bad}name` }), message: "Topic name must not contain control characters", field: "name" },
    { name: "topic emoji", method: "PUT", path: () => `/api/topics/${topic.id}`, body: (bad) => ({ emoji: `🚀${bad}🚀` }), message: "Emoji must not contain control characters", field: "emoji" },
    { name: "title name", method: "POST", path: () => `/api/hardalice/${topic.linkSlug}/titles`, body: (bad) => ({ name: `Title${bad}name` }), message: "Title name must not contain control characters", field: "name" },
    { name: "title display name", method: "POST", path: () => `/api/hardalice/${topic.linkSlug}/titles`, body: (bad) => ({ name: "Ok title", displayName: `Dis${bad}play` }), message: "Display name must not contain control characters", field: "displayName" },
    { name: "link title", method: "POST", path: () => "/api/links", body: (bad) => ({ originalUrl: "https://example.com/c", title: `Link${bad}title` }), message: "Title must not contain control characters", field: "title" },
  ];
  for (const f of fields)
    test(`${f.name}: every C0/C1 control is refused with a clear message, nothing written`, async () => {
      const before = ["users", "topics", "titles", "short_links"].map(t.count);
      for (const bad of controls) {
        const r = await t.call(f.method, f.path(), { cookie: alice.cookie, body: f.body(bad) });
        expect({ bad, status: r.status, body: r.json }).toEqual({ bad, status: 400, body: { error: { code: "VALIDATION", message: f.message, fields: { [f.field]: f.message } } } });
      }
      expect(["users", "topics", "titles", "short_links"].map(t.count)).toEqual(before);
    });

  test("message text is stored as typed with its line breaks and tabs; other C0 controls (NUL too) are refused", async () => {
    const notes = "one\n\ttwo\r\nthree\u007f\u0085four";
    const ok = await t.call("POST", `/api/hardalice/${topic.linkSlug}/titles`, { cookie: alice.cookie, body: { name: "Lines", notes } });
    expect(ok.status).toBe(201);
    expect(ok.json.notes).toBe(notes);
    const before = await t.count("titles");
    for (const bad of ["\u0000", "\u0007", "\u001b[31m", "\u000b"]) {
      const r = await t.call("POST", `/api/hardalice/${topic.linkSlug}/titles`, { cookie: alice.cookie, body: { name: "Lines", notes: `a${bad}b` } });
      const message = "Notes must not contain control characters other than tabs and line breaks";
      expect({ bad, status: r.status, body: r.json }).toEqual({ bad, status: 400, body: { error: { code: "VALIDATION", message, fields: { notes: message } } } });
    }
    expect(await t.count("titles")).toBe(before);
  });

  test("names in other scripts, emoji and punctuation are still fine", async () => {
    const r = await t.call("POST", "/api/topics", { cookie: alice.cookie, body: { name: "Café 🚀 — Ünïcödé/日本" } });
    expect(r.status).toBe(201);
    expect(r.json.name).toBe("Café 🚀 — Ünïcödé/日本");
  });
});
