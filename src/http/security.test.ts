// Security by default: the CSP and headers on every web-app file, the request body limit, and
// the Origin guard on every state-changing API route (enumerated from the app, so a new route
// is covered the moment it is mounted).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { ORIGIN, setup } from "../test/helpers";
import { MAX_BODY_BYTES, MAX_REQUEST_BYTES, TOO_LARGE_MESSAGE } from "./bodyLimit";
import { contentSecurityPolicy, inlineScriptHashes } from "./spa";
import { FFMPEG_WORKER_URL } from "../shared/ffmpegPaths";

const t = await setup();
const { app, call, signUp, count } = t;

const sha256 = (s: string) => `'sha256-${new Bun.CryptoHasher("sha256").update(s).digest("base64")}'`;
/** The theme script as written in web/index.html: the one inline script the page may run. */
const sourceHtml = readFileSync(new URL("../../web/index.html", import.meta.url), "utf8");
const themeScript = sourceHtml.match(/<script>([\s\S]*?)<\/script>/)![1]!;

function directives(csp: string) {
  return new Map(csp.split(";").map((d) => {
    const [name, ...values] = d.trim().split(/\s+/);
    return [name!, values] as const;
  }));
}

describe("Content-Security-Policy on the web app", () => {
  const pages: [string, string, number][] = [
    ["the home page", "/", 200],
    ["a client-routed page", "/pricing", 200],
    ["a deep app path", "/someone/topic/title", 200],
  ];
  // An unknown short code gets the visitor page, with its stricter policy (no script at all):
  // src/redirects/visitorPages.test.ts.
  for (const [name, path, status] of pages)
    test(`${name} (${path}) is served with the strict policy`, async () => {
      const r = await call("GET", path);
      expect(r.status).toBe(status);
      expect(r.headers.get("content-type")).toContain("text/html");
      const csp = r.headers.get("content-security-policy");
      expect(csp).not.toBeNull();
      const d = directives(csp!);
      expect(d.get("default-src")).toEqual(["'self'"]);
      expect(d.get("script-src")).toEqual(["'self'", "'wasm-unsafe-eval'", sha256(themeScript)]);
      expect(d.get("worker-src")).toEqual(["'self'", "blob:"]);
      // React and the UI libraries style elements through the CSSOM, which CSP leaves alone.
      expect(d.get("style-src")).toEqual(["'self'"]);
      expect(d.get("img-src")).toEqual(["'self'", "data:", "blob:"]);
      expect(d.get("media-src")).toEqual(["'self'", "blob:"]);
      expect(d.get("connect-src")).toEqual(["'self'"]);
      expect(d.get("object-src")).toEqual(["'none'"]);
      expect(d.get("base-uri")).toEqual(["'none'"]);
      expect(d.get("form-action")).toEqual(["'self'"]);
      expect(d.get("frame-ancestors")).toEqual(["'none'"]);
      // Script may never come from inline code (other than the hash), eval or other hosts.
      expect(csp).not.toContain("'unsafe-eval'");
      expect(d.get("script-src")).not.toContain("'unsafe-inline'");
      expect(csp).not.toMatch(/https?:|\*/);
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
      expect(r.headers.get("x-frame-options")).toBe("DENY");
      expect(r.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    });

  test("the hash is of the inline script actually served, which is web/index.html's theme script", async () => {
    const r = await call("GET", "/");
    expect(inlineScriptHashes(r.text)).toEqual([sha256(themeScript)]);
    expect(r.headers.get("content-security-policy")).toContain(sha256(themeScript));
  });

  test("every chunk the page loads carries the same policy and nosniff", async () => {
    const page = await call("GET", "/");
    const refs = [...page.text.matchAll(/(?:src|href)="(\/chunk-[^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThanOrEqual(2);
    for (const ref of refs) {
      const r = await call("GET", ref);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-security-policy")).toBe(page.headers.get("content-security-policy"));
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
      expect(r.headers.get("cross-origin-resource-policy")).toBe("same-origin");
    }
  });

  test("the video engine's worker gets a policy that allows wasm and nothing from elsewhere", async () => {
    const r = await app.handle(new Request(`${ORIGIN}${FFMPEG_WORKER_URL}`));
    const d = directives(r.headers.get("content-security-policy") ?? "");
    expect(d.get("script-src")).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(d.get("connect-src")).toEqual(["'self'"]);
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
  });

  const hashCases: [string, string, string[]][] = [
    ["no scripts", "<p>hi</p>", []],
    ["a script with src is not hashed", `<script type="module" src="/a.js"></script>`, []],
    ["an inline script is hashed exactly, whitespace included", "<script>\n  x()\n</script>", [sha256("\n  x()\n")]],
    ["attributes on an inline script", `<script type="text/javascript">y()</script>`, [sha256("y()")]],
    ["two scripts, one repeated", "<script>a</script><SCRIPT>b</SCRIPT><script>a</script>", [sha256("a"), sha256("b")]],
  ];
  for (const [name, html, expected] of hashCases) test(`inlineScriptHashes: ${name}`, () => expect(inlineScriptHashes(html)).toEqual(expected));

  test("the policy lists the given hashes in script-src only", () => {
    const d = directives(contentSecurityPolicy(["'sha256-abc='"]));
    expect(d.get("script-src")).toContain("'sha256-abc='");
    expect(d.get("style-src")).not.toContain("'sha256-abc='");
  });
});

describe("request body limit", () => {
  const big = (bytes: number) => JSON.stringify({ username: "x".repeat(bytes), password: "p", email: "e@example.test" });

  test("a body over 1 MB is refused with 413 in the one error shape, and nothing is written", async () => {
    const users = await count("users");
    const raw = big(MAX_BODY_BYTES + 10);
    const r = await call("POST", "/api/register", { raw, headers: { "content-length": String(raw.length) } });
    expect(r.status).toBe(413);
    expect(r.json).toEqual({ error: { code: "PAYLOAD_TOO_LARGE", message: TOO_LARGE_MESSAGE } });
    expect(await count("users")).toBe(users);
  });

  test("a body just under the limit reaches validation as usual", async () => {
    const raw = big(MAX_BODY_BYTES - 200);
    const r = await call("POST", "/api/register", { raw, headers: { "content-length": String(raw.length) } });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe("VALIDATION");
  });

  test("a signed-in route refuses a large body before it does anything", async () => {
    const { cookie } = await signUp("bodylimit");
    const topics = await count("topics");
    const raw = JSON.stringify({ name: "x".repeat(2 * MAX_BODY_BYTES) });
    const r = await call("POST", "/api/topics", { raw, cookie, headers: { "content-length": String(raw.length) } });
    expect(r.status).toBe(413);
    expect(await count("topics")).toBe(topics);
  });

  test("the listening server applies the limits: 413 JSON above 1 MB, Bun's own 413 above its ceiling", async () => {
    const server = app.listen({ port: 0, hostname: "127.0.0.1" }).server!;
    try {
      const url = `http://127.0.0.1:${server.port}/api/register`;
      const post = (body: string) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
      const over = await post(big(MAX_BODY_BYTES + 10));
      expect(over.status).toBe(413);
      expect((await over.json()).error.code).toBe("PAYLOAD_TOO_LARGE");
      const huge = await post(big(MAX_REQUEST_BYTES + 10));
      expect(huge.status).toBe(413);
      const ok = await post(JSON.stringify({ username: "bodyok", password: "correct horse battery", email: "bodyok@example.test" }));
      expect(ok.status).toBe(201);
    } finally {
      server.stop(true);
    }
  });
});

describe("Origin guard covers every state-changing API route", () => {
  // Every POST/PUT/PATCH/DELETE under /api the app has, with sample values for its params.
  const routes = app.routes
    .filter((r) => r.path.startsWith("/api/") && !["GET", "HEAD", "OPTIONS"].includes(r.method) && r.path !== "/api/*")
    .map((r) => ({ method: r.method === "ALL" ? "POST" : r.method, path: r.path.replace(/:[A-Za-z]+/g, "1") }));

  test("the list is not empty (so the loop below can fail)", () => {
    expect(routes.length).toBeGreaterThanOrEqual(15);
  });

  test("a cross-site request to each is refused with 403 before it runs", async () => {
    const { cookie } = await signUp("originvictim");
    const before = ["users", "sessions", "topics", "invites", "shares", "short_links", "titles", "notifications"].map(count);
    const answers: string[] = [];
    for (const { method, path } of routes) {
      for (const origin of ["https://evil.example", "null", "http://localhost:3000.evil.example"]) {
        const r = await call(method, path, { cookie, body: {}, headers: { origin } });
        if (r.status !== 403 || r.json?.error?.code !== "FORBIDDEN") answers.push(`${method} ${path} (${origin}) → ${r.status}`);
      }
    }
    expect(answers).toEqual([]);
    expect(["users", "sessions", "topics", "invites", "shares", "short_links", "titles", "notifications"].map(count)).toEqual(before);
  });

  test("the app's own origin passes the guard", async () => {
    const r = await call("POST", "/api/login", { body: { username: "originvictim", password: "correct horse battery" }, headers: { origin: ORIGIN } });
    expect(r.status).toBe(200);
  });
});
