// The hostile corpus: what an anonymous client, a signed-in stranger and a cross-site page
// send, built from the app's own route list so every route is attacked. Each case states the
// answer the issue requires (#11): 4xx for bad input, exact statuses where the issue names
// them (413 oversize, 415 form bodies, 401 anonymous, 403 foreign Origin, 404 bad escapes and
// other users' ids), never a 5xx.
import type { RawRequest, RawResponse } from "./http";
import type { Route } from "./routes";

export type Expect = number | number[] | "4xx" | "2xx" | "2xx|4xx" | "<500";

export type Case = {
  group: string;
  req: RawRequest;
  expect: Expect;
  /** The HTTP parser itself may answer (bare 400/413/431): no JSON body or app headers owed. */
  bare?: boolean;
  /** Override whether an /api error body must be the one JSON error shape. */
  json?: boolean;
  /** An extra check on the answer; returns why it fell short, or null. */
  check?: (r: RawResponse) => string | null;
};

/** The values that fill a route's parameters: one user's own things. */
export type Values = {
  username: string;
  topicSlug: string;
  topicId: number;
  titleId: number;
  mainLinkId: number;
  brandLinkId: number;
  shortCode: string;
  inviteCode: string;
  notificationId: number;
};

export type Fixture = {
  port: number;
  origin: string;
  alice: { cookie: string; values: Values; publicSlug: string; privateSlug: string; rootLinkId: number };
  bob: { cookie: string };
  mallory: { cookie: string; values: Values; apiKey: string };
  /** The server's API_RATE_LIMIT (requests a minute per key); mallory's key is used only below. */
  keyLimit: number;
};

const MUTATING = ["POST", "PUT", "DELETE", "PATCH"];
/** /api routes anyone may call; every other /api route must answer 401 to a stranger. */
const PUBLIC_API = new Set([
  "GET /api/health",
  "GET /api/config",
  "POST /api/register",
  "POST /api/login",
  "POST /api/logout",
  "GET /api/invites/:code",
  "GET /api/links/redirect/:code",
  // A protected link's password form, posted back to the Safari path it was shown on.
  "POST /api/links/redirect/:code",
  // The API's own description and its reference page are public, like any project's API docs.
  "GET /api/openapi.json",
  "GET /api/docs",
  "GET /api/*",
  "ALL /api/*",
]);
/** The redirect lane answers unknown codes with the web app's page, not JSON. */
export const isRedirectLane = (path: string) => /^\/(l\/|r\/|api\/links\/redirect\/|:code$)/.test(path) || path === "/:code";

function fillPath(path: string, v: Values, override?: { param: string; value: string }) {
  return path
    .split("/")
    .map((seg, i, all) => {
      if (!seg.startsWith(":") && seg !== "*") return seg;
      const name = seg === "*" ? "*" : seg.slice(1);
      if (override && override.param === `${i}:${seg}`) return override.value;
      const p = all.slice(0, i).join("/");
      if (name === "*") return "hostile/x";
      if (name === "username") return v.username;
      if (name === "topicSlug") return v.topicSlug;
      if (name === "code") return p.startsWith("/api/invites") ? v.inviteCode : v.shortCode;
      if (name === "id") {
        if (p.startsWith("/api/topics")) return String(v.topicId);
        if (p.startsWith("/api/links")) return String(v.mainLinkId);
        if (p.startsWith("/api/pic-drift-links")) return String(v.brandLinkId);
        if (p.startsWith("/api/notifications")) return String(v.notificationId);
        if (p.endsWith("/titles")) return String(v.titleId);
      }
      return "1";
    })
    .join("/");
}

/** A body each route accepts, so only the thing under test (Origin, owner) can refuse it. */
function validBody(method: string, path: string): unknown {
  const key = `${method} ${path}`;
  if (key === "POST /api/register") return { username: "csrfuser", password: "a fine password", email: "csrf@example.test" };
  if (key === "POST /api/login") return { username: "alice", password: "not the password" };
  if (path.endsWith("/titles")) return { name: "Injected title", keyPhrase: "injected" };
  if (path.includes("/titles/")) return { name: "Renamed title", notes: "renamed" };
  if (key === "POST /api/topics") return { name: "Injected topic" };
  if (key === "POST /api/topics/reorder") return { fromIndex: 0, toIndex: 1 };
  if (key === "PUT /api/topics/:id") return { name: "Renamed topic", accessType: "public" };
  if (key === "PUT /api/pic-drift-links/:id") return { shortCode: "renamed1", originalUrl: "https://example.com/renamed", title: "Renamed" };
  if (method === "POST" && /^\/api\/(links|pic-drift-links)\/?$/.test(path)) return { originalUrl: "https://example.com/injected", title: "Injected" };
  return {};
}

const json = (b: unknown) => JSON.stringify(b);
const expandMethods = (r: Route) => (r.method === "ALL" ? MUTATING : [r.method]);

/** Every field of every body schema, each with the wrong type: no schema accepts this. */
const WRONG_FIELDS = `"username":1,"password":[],"email":{},"name":2,"originalUrl":3,"title":false,"shortCode":4,"fromIndex":"x","toIndex":null,"notes":5,"keyPhrase":6`;

// Deep and wide JSON, each well under the 1 MiB limit: what stalled the server in #11.
const DEEP_ARRAY = "[".repeat(20_000) + "]".repeat(20_000);
const DEEP_OBJECT = '{"a":'.repeat(8_000) + "1" + "}".repeat(8_000);
const DEEP_IN_FIELD = `{"name":${"[".repeat(20_000)}${"]".repeat(20_000)},"username":${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
// 100k keys in ~870 KB (base-36 names keep it under the limit), then every field mistyped.
const WIDE_OBJECT = `{${Array.from({ length: 100_000 }, (_, i) => `"${i.toString(36)}":0`).join(",")},${WRONG_FIELDS}}`;
const WIDE_ARRAY = `[${Array(400_000).fill("0").join(",")}]`;
const HUGE_NUMBER = `{"fromIndex":1${"0".repeat(500_000)},${WRONG_FIELDS}}`;
const MIB = 1024 * 1024;
const OVER_LIMIT = `{"name":"${"x".repeat(MIB + 4096)}","username":"${"y".repeat(10)}"}`;
const NEAR_LIMIT = `{"name":"${"x".repeat(900_000)}","username":"${"u".repeat(100_000)}","title":"${"t".repeat(10_000)}"}`;
const CHUNKED_2MIB = `{"name":"${"x".repeat(2 * MIB)}"}`;
const CHUNKED_6MIB = `{"name":"${"x".repeat(6 * MIB)}"}`;

const MALFORMED = ["{", '{"name":}', '{"name":"a"}}', "{'name':'a'}", '{"name":"a",}', "NaN", "\u0000", '{"name":"a', "/* */{}", '{"name":"a"\n"title":"b"}'];
const PRIMITIVES = ["null", "[]", '"just a string"', "42", "true"];

const jsonHeaders = (cookie: string | null, origin: string, type = "application/json"): [string, string][] => {
  const h: [string, string][] = [["Content-Type", type], ["Origin", origin]];
  if (cookie) h.push(["Cookie", cookie]);
  return h;
};

export function buildCorpus(routes: Route[], fx: Fixture): Case[] {
  const cases: Case[] = [];
  const add = (c: Case) => cases.push(c);
  const { origin } = fx;
  const m = fx.mallory;
  const a = fx.alice;
  const isApi = (p: string) => p.startsWith("/api/");
  const needsAuth = (method: string, path: string) => isApi(path) && !PUBLIC_API.has(`${method} ${path}`) && !PUBLIC_API.has(`ALL ${path}`);

  // 1. Malformed percent-escapes, in every parameter of every route (and the paths #11 names).
  const ESCAPES = ["%ff", "%", "%ZZ", "abc%ZZ", "%c0%af"];
  for (const target of ["/%ff", "/%", "/abc%ZZ", "/l/%ff", "/r/%ff", "/api/links/redirect/%ff", "/%ff/%ff", "/api/%ff", "/vendor/%ff"])
    add({ group: "bad escape", req: { method: "GET", target, headers: [["Cookie", m.cookie]] }, expect: 404, json: !isRedirectLane(target) && isApi(target) });
  for (const r of routes) {
    if (r.path.startsWith("/chunk-")) continue;
    const segs = r.path.split("/");
    for (let i = 0; i < segs.length; i++) {
      const seg = segs[i]!;
      if (!seg.startsWith(":") && seg !== "*") continue;
      for (const esc of r.method === "ALL" ? ESCAPES.slice(0, 2) : ESCAPES.slice(0, 3))
        for (const method of expandMethods(r)) {
          const target = fillPath(r.path, m.values, { param: `${i}:${seg}`, value: esc });
          const body = MUTATING.includes(method) ? json(validBody(method, r.path)) : undefined;
          add({
            group: "bad escape",
            req: { method, target, headers: jsonHeaders(m.cookie, origin), body },
            // #11: a malformed escape is a 404 (or 400), on every route and the fast lane.
            expect: isRedirectLane(r.path) ? 404 : [400, 404],
            json: isApi(target) && !isRedirectLane(r.path),
          });
        }
    }
  }

  // 1b. Wrong types and hostile text in every parameter: nothing is found, nothing breaks.
  const PARAMS = ["-1", "0", "1.5", "99999999999999999999", "0x10", "'%20OR%201=1%20--", "%3Cscript%3Ealert(1)%3C%2Fscript%3E", "a".repeat(3000), "%00", "%F0%9F%98%80", "..%2f..%2fetc"];
  for (const r of routes) {
    if (r.path.startsWith("/chunk-")) continue;
    const segs = r.path.split("/");
    for (let i = 0; i < segs.length; i++) {
      const seg = segs[i]!;
      if (!seg.startsWith(":") && seg !== "*") continue;
      for (const value of PARAMS)
        for (const method of r.method === "ALL" ? ["POST"] : [r.method]) {
          const target = fillPath(r.path, m.values, { param: `${i}:${seg}`, value });
          const body = MUTATING.includes(method) ? json(validBody(method, r.path)) : undefined;
          add({
            group: "hostile parameter value",
            req: { method, target, headers: jsonHeaders(m.cookie, origin), body },
            // The web app's catch-all (GET /*) answers any path with the app (200).
            expect: isRedirectLane(r.path) ? 404 : isApi(r.path) ? "4xx" : "<500",
          });
        }
    }
  }

  // 2. Anonymous calls, with broken bodies where a body goes: 401 before any validation.
  for (const r of routes) {
    for (const method of expandMethods(r)) {
      if (!needsAuth(method, r.path)) continue;
      const target = fillPath(r.path, m.values);
      if (MUTATING.includes(method)) {
        for (const [what, body] of [["malformed", '{"name":'], ["deep array", DEEP_ARRAY], ["wrong types", `{${WRONG_FIELDS}}`]] as const)
          add({ group: `anonymous, ${what} body`, req: { method, target, headers: [["Content-Type", "application/json"]], body }, expect: 401 });
        add({ group: "anonymous, form body", req: { method, target, headers: [["Content-Type", "application/x-www-form-urlencoded"]], body: "name=x" }, expect: [401, 415] });
      } else add({ group: "anonymous", req: { method, target }, expect: 401 });
    }
  }

  // 3. Cross-site: the victim's cookie, a valid body, a foreign Origin. Must be 403 and change
  //    nothing (alice's data is read back at the end).
  const FOREIGN: [string, (h: [string, string][]) => [string, string][]][] = [
    ["foreign Origin", (h) => [...h, ["Origin", "http://evil.example"]]],
    ["Origin: null", (h) => [...h, ["Origin", "null"]]],
    ["DNS rebinding (Host and Origin evil)", (h) => [["Host", "evil.example"], ...h, ["Origin", "http://evil.example"]]],
    ["Origin that only starts like ours", (h) => [...h, ["Origin", `${origin}.evil.example`]]],
  ];
  for (const r of routes) {
    if (!isApi(r.path) || r.path === "/api/*") continue;
    for (const method of expandMethods(r)) {
      if (!MUTATING.includes(method)) continue;
      const target = fillPath(r.path, a.values);
      for (const [what, hdr] of FOREIGN)
        add({
          group: `cross-site (${what})`,
          req: { method, target, headers: hdr([["Content-Type", "application/json"], ["Cookie", a.cookie]]), body: json(validBody(method, r.path)) },
          expect: 403,
        });
    }
  }

  // 4. Bodies no schema accepts, sent signed in (so validation is what must refuse them).
  const bodyRoutes = routes.filter((r) => r.hasBody && isApi(r.path));
  for (const r of bodyRoutes) {
    const target = fillPath(r.path, m.values);
    const cookie = needsAuth(r.method, r.path) ? m.cookie : null;
    const h = (type?: string) => jsonHeaders(cookie, origin, type);
    const req = (body: string | Uint8Array, extra: Partial<RawRequest> = {}): RawRequest => ({ method: r.method, target, headers: h(), body, ...extra });
    add({ group: "deep JSON array (20,000)", req: req(DEEP_ARRAY), expect: "4xx" });
    add({ group: "deep JSON object (8,000)", req: req(DEEP_OBJECT), expect: "4xx" });
    add({ group: "deep JSON inside a field", req: req(DEEP_IN_FIELD), expect: "4xx" });
    add({ group: "wide JSON object (100k keys)", req: req(WIDE_OBJECT), expect: "4xx" });
    add({ group: "wide JSON array (400k items)", req: req(WIDE_ARRAY), expect: "4xx" });
    add({ group: "500,000-digit number", req: req(HUGE_NUMBER), expect: "4xx" });
    add({ group: "body over 1 MiB (Content-Length)", req: req(OVER_LIMIT), expect: 413 });
    add({ group: "1 MB of strings under the limit", req: req(NEAR_LIMIT), expect: "4xx" });
    add({ group: "chunked body of 2 MiB", req: req(CHUNKED_2MIB, { chunkSize: 64 * 1024 }), expect: 413 });
    add({ group: "chunked deep JSON", req: req(DEEP_ARRAY, { chunkSize: 4096 }), expect: "4xx" });
    add({ group: "wrong types", req: req(`{${WRONG_FIELDS}}`), expect: "4xx" });
    add({ group: "form-encoded body", req: { ...req("name=x&username=y&originalUrl=https%3A%2F%2Fexample.com"), headers: h("application/x-www-form-urlencoded") }, expect: 415 });
    add({ group: "multipart body", req: { ...req('--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--b--\r\n'), headers: h("multipart/form-data; boundary=b") }, expect: 415 });
    add({ group: "text/plain body", req: { ...req(`{${WRONG_FIELDS}}`), headers: h("text/plain") }, expect: "4xx" });
    add({ group: "no Content-Type", req: { ...req(`{${WRONG_FIELDS}}`), headers: h().filter(([k]) => k !== "Content-Type") }, expect: "4xx" });
    for (const p of PRIMITIVES) add({ group: "JSON that is not an object", req: req(p), expect: "4xx" });
    for (const p of MALFORMED) add({ group: "malformed JSON", req: req(p), expect: "4xx" });
    // An empty body is "nothing sent": a route whose fields are all optional may take it as {}.
    add({ group: "empty body", req: req(""), expect: "2xx|4xx" });
    // Invalid UTF-8 where JSON needs structure (a key's closing quote): not JSON at all.
    add({ group: "bad UTF-8 bytes", req: req(new Uint8Array([...Buffer.from('{"name"'), 0xff, 0xfe, ...Buffer.from(':"a"}')])), expect: "4xx" });
  }
  // The chunked limit above Bun's own ceiling: the server itself may refuse it, bare.
  add({
    group: "chunked body of 6 MiB",
    req: { method: "POST", target: "/api/topics", headers: jsonHeaders(m.cookie, origin), body: CHUNKED_6MIB, chunkSize: 256 * 1024 },
    expect: 413,
    bare: true,
  });
  // Anonymous deep JSON on the public routes: the cost must not depend on who asks.
  for (const target of ["/api/login", "/api/register", "/api/logout"])
    for (const body of [DEEP_ARRAY, DEEP_OBJECT, DEEP_IN_FIELD])
      add({ group: "anonymous deep JSON, public route", req: { method: "POST", target, headers: [["Content-Type", "application/json"]], body }, expect: target === "/api/logout" ? "2xx|4xx" : "4xx" });
  // Bad UTF-8 inside a string: replaced or refused, either way no crash and a clean answer.
  add({
    group: "bad UTF-8 in a sign-in",
    req: { method: "POST", target: "/api/login", headers: [["Content-Type", "application/json"]], body: new Uint8Array([...Buffer.from('{"username":"'), 0xff, 0xc0, 0xaf, ...Buffer.from('","password":"x'), 0xed, 0xa0, 0x80, ...Buffer.from('"}')]) },
    expect: "4xx",
  });

  cases.push(...othersCases(fx), ...textCases(fx), ...headerCases(fx), ...traversalCases(fx), ...rateLimitCases(fx));
  return cases;
}

/** A signed-in stranger (and a member) using other people's ids: 404 ("missing" and "not yours" are one). */
function othersCases(fx: Fixture): Case[] {
  const cases: Case[] = [];
  const { origin } = fx;
  const a = fx.alice.values;
  const as = (cookie: string, method: string, target: string, expect: Expect, body?: unknown): Case => ({
    group: "another user's ids",
    req: { method, target, headers: jsonHeaders(cookie, origin), body: body === undefined ? undefined : json(body) },
    expect,
  });
  const mal = fx.mallory.cookie;
  const t = `/api/${a.username}/${a.topicSlug}/titles`;
  const priv = `/api/${a.username}/${fx.alice.privateSlug}/titles`;
  cases.push(
    as(mal, "PUT", `/api/topics/${a.topicId}`, 404, { name: "Mine now" }),
    as(mal, "DELETE", `/api/topics/${a.topicId}`, 404),
    as(mal, "GET", `/api/topics/${a.topicId}/contact.vcf`, 404),
    as(mal, "GET", `/api/topic/${a.username}/${a.topicSlug}`, 404),
    as(mal, "GET", `/api/topic/${a.username}/${fx.alice.privateSlug}`, 404),
    as(mal, "POST", `/api/topic/${a.username}/${a.topicSlug}/open`, 404),
    as(mal, "GET", t, 404),
    as(mal, "POST", t, 404, { name: "Planted" }),
    as(mal, "PUT", `${t}/${a.titleId}`, 404, { name: "Mine now" }),
    as(mal, "DELETE", `${t}/${a.titleId}`, 404),
    as(mal, "GET", priv, 404),
    // A public topic: strangers read it, but may not write to it.
    as(mal, "POST", `/api/${a.username}/${fx.alice.publicSlug}/titles`, 403, { name: "Planted" }),
    as(mal, "POST", `/api/notifications/${a.notificationId}/read`, 404),
    // Bob accepted alice's invite: a member adds titles and messages, but only the owner
    // edits, renames or deletes hers (PRODUCT.md; #11).
    as(fx.bob.cookie, "PUT", `${t}/${a.titleId}`, 403, { name: "Renamed by a member" }),
    as(fx.bob.cookie, "PUT", `${t}/${a.titleId}?updateAllVersions=true`, 403, { notes: "edited by a member" }),
    as(fx.bob.cookie, "DELETE", `${t}/${a.titleId}`, 403),
    as(fx.bob.cookie, "DELETE", `${t}/${a.titleId}?allVersions=true`, 403),
    as(fx.bob.cookie, "PUT", `/api/topics/${a.topicId}`, 404, { name: "Renamed by a member" }),
    as(fx.bob.cookie, "DELETE", `/api/topics/${a.topicId}`, 404),
  );
  for (const prefix of ["/api/links", "/api/pic-drift-links"])
    for (const id of [a.mainLinkId, a.brandLinkId, fx.alice.rootLinkId]) {
      cases.push(
        as(mal, "GET", `${prefix}/${id}/analytics`, 404),
        as(mal, "GET", `${prefix}/${id}/clicks.csv`, 404),
        as(mal, "DELETE", `${prefix}/${id}`, 404),
        as(mal, "PUT", `${prefix}/${id}`, 404, { shortCode: "stolen1", originalUrl: "https://example.com/stolen", title: "Stolen" }),
        as(mal, "POST", `${prefix}/${id}/reset-clicks`, 404),
        as(mal, "POST", `${prefix}/${id}/reset-clicks?isRoot=true`, 404),
      );
    }
  // Opening a public topic over and over counts once (#11: the open count cannot be inflated);
  // the count is read back at the end.
  for (let i = 0; i < 5; i++)
    cases.push({ ...as(mal, "POST", `/api/topic/${a.username}/${fx.alice.publicSlug}/open`, "2xx"), group: "repeated topic open" });
  return cases;
}

/** Script, SQL, emoji and control characters in names: stored as data, or refused; never run. */
function textCases(fx: Fixture): Case[] {
  const cases: Case[] = [];
  const { origin } = fx;
  const mal = fx.mallory.cookie;
  const readsBack = (value: string) => (r: RawResponse) => {
    try {
      const body = JSON.parse(r.text) as { name?: string; title?: string; description?: string };
      return [body.name, body.title, body.description].includes(value) ? null : `stored as ${JSON.stringify(body.name ?? body.title)}`;
    } catch {
      return "answer is not JSON";
    }
  };
  const kept = [
    `<script>alert("x")</script>`,
    `"><img src=x onerror=alert(1)>`,
    `'; DROP TABLE users; --`,
    `1' OR '1'='1`,
    `🧵🔗✨ naïve café`,
    `‮evil‭ rtl`,
    `{{constructor.constructor('alert(1)')()}}`,
    `__proto__`,
  ];
  kept.forEach((name, i) => {
    cases.push({ group: "script/SQL/unicode topic name", req: { method: "POST", target: "/api/topics", headers: jsonHeaders(mal, origin), body: json({ name: `${name} ${i}` }) }, expect: 201, check: readsBack(`${name} ${i}`) });
    cases.push({
      group: "script/SQL/unicode link title",
      req: { method: "POST", target: "/api/links", headers: jsonHeaders(mal, origin), body: json({ originalUrl: `https://example.com/${i}?q=%3Cscript%3E`, title: name, description: name }) },
      expect: 201,
      check: readsBack(name),
    });
  });
  // "a" and 500,000 combining marks (1 MB of UTF-8) is one grapheme: a name counted only in
  // graphemes would take it as one character. Names must be bounded in code units too.
  cases.push({ group: "one grapheme, 500,000 combining marks", req: { method: "POST", target: "/api/topics", headers: jsonHeaders(mal, origin), body: json({ name: `a${"\u0301".repeat(500_000)}` }) }, expect: 400 });
  cases.push({ group: "one grapheme, 500,000 combining marks", req: { method: "POST", target: `/api/${fx.mallory.values.username}/${fx.mallory.values.topicSlug}/titles`, headers: jsonHeaders(mal, origin), body: json({ name: `a${"\u0301".repeat(500_000)}` }) }, expect: 400 });
  // #11: names reject control characters (U+0000 was accepted).
  for (const bad of ["a\u0000b", "a\u0007b", "esc\u001b[31mred", "new\nline", "del\u007f"]) {
    cases.push({ group: "control character in a topic name", req: { method: "POST", target: "/api/topics", headers: jsonHeaders(mal, origin), body: json({ name: bad }) }, expect: 400 });
    cases.push({ group: "control character in a title name", req: { method: "POST", target: `/api/${fx.mallory.values.username}/${fx.mallory.values.topicSlug}/titles`, headers: jsonHeaders(mal, origin), body: json({ name: bad }) }, expect: 400 });
  }
  for (const url of ["javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "http://user:pw@example.com/", `${origin}/loop`, "file:///etc/passwd", "http://exa mple.com/", "java\tscript:alert(1)"])
    cases.push({ group: "hostile destination", req: { method: "POST", target: "/api/links", headers: jsonHeaders(mal, origin), body: json({ originalUrl: url, title: "x" }) }, expect: 400 });
  for (const username of [`<script>`, `admin' --`, `ａｄｍｉｎ`, `api`, `a\u0000b`, "x".repeat(300)])
    cases.push({ group: "hostile username", req: { method: "POST", target: "/api/register", headers: jsonHeaders(null, origin), body: json({ username, password: "a fine password", email: "h@example.test" }) }, expect: "4xx" });
  for (const username of [`alice' OR '1'='1`, `alice"; --`, "%00", "alice\u0000"])
    cases.push({ group: "SQL-looking sign-in", req: { method: "POST", target: "/api/login", headers: jsonHeaders(null, origin), body: json({ username, password: "x' OR 1=1 --" }) }, expect: "4xx" });
  return cases;
}

/** Header tricks: oversize, duplicated, contradictory, spoofed. */
function headerCases(fx: Fixture): Case[] {
  const { origin } = fx;
  const code = fx.mallory.values.shortCode;
  const mal = fx.mallory.cookie;
  const host = new URL(origin).host;
  const login = '{"username":"alice","password":"not the password"}';
  const noCookie = (r: RawResponse) => (r.headers.has("set-cookie") ? "set a cookie for a host it does not serve" : null);
  const redirects = (r: RawResponse) => (r.headers.get("location")?.[0]?.startsWith("https://example.com/") ? null : `location ${r.headers.get("location")}`);
  const c = (group: string, req: RawRequest, expect: Expect, extra: Partial<Case> = {}): Case => ({ group, req, expect, ...extra });
  return [
    c("huge header (64 KB)", { method: "GET", target: "/api/health", headers: [["X-Big", "a".repeat(64 * 1024)]] }, "4xx", { bare: true }),
    c("huge cookie (16 KB)", { method: "GET", target: "/api/user", headers: [["Cookie", `tl_session=${"a".repeat(16 * 1024)}`]] }, "4xx", { bare: true }),
    c("500 headers", { method: "GET", target: "/api/health", headers: Array.from({ length: 500 }, (_, i): [string, string] => [`X-H${i}`, "v"]) }, "<500", { bare: true }),
    c("garbage session cookie", { method: "GET", target: "/api/user", headers: [["Cookie", "tl_session=%ff%00%; tl_session=x; =;;"]] }, 401),
    c("many cookies", { method: "GET", target: "/api/user", headers: [["Cookie", Array.from({ length: 300 }, (_, i) => `c${i}=${i}`).join("; ")]] }, 401),
    c("duplicate Content-Length (different)", { method: "POST", target: "/api/login", headers: [["Content-Type", "application/json"], ["Content-Length", String(login.length)], ["Content-Length", String(login.length + 5)]], body: login, noContentLength: true }, "4xx", { bare: true }),
    c("duplicate Content-Length (same)", { method: "POST", target: "/api/login", headers: [["Content-Type", "application/json"], ["Content-Length", String(login.length)], ["Content-Length", String(login.length)]], body: login, noContentLength: true }, "4xx", { bare: true }),
    c("Content-Length and chunked together (smuggling)", { method: "POST", target: "/api/login", headers: [["Content-Type", "application/json"], ["Content-Length", "4"]], body: login, chunkSize: 8 }, "4xx", { bare: true }),
    c("negative Content-Length", { method: "POST", target: "/api/login", headers: [["Content-Type", "application/json"], ["Content-Length", "-1"]], body: login, noContentLength: true }, "4xx", { bare: true }),
    c("Content-Length of 2^64", { method: "POST", target: "/api/login", headers: [["Content-Type", "application/json"], ["Content-Length", "18446744073709551616"]], body: login, noContentLength: true }, "4xx", { bare: true }),
    c("declared 1 GB, sent 50 bytes", { method: "POST", target: "/api/topics", headers: [["Content-Type", "application/json"], ["Cookie", mal], ["Content-Length", String(1024 ** 3)]], body: login, noContentLength: true, timeoutMs: 3000 }, 413, { bare: true }),
    c("unknown Transfer-Encoding", { method: "POST", target: "/api/login", headers: [["Content-Type", "application/json"], ["Transfer-Encoding", "gzip, identity"]], body: login, noContentLength: true }, "4xx", { bare: true }),
    c("bogus Host on a redirect", { method: "GET", target: `/${code}`, headers: [["Host", "evil.example"]] }, 302, { check: (r) => noCookie(r) ?? redirects(r) }),
    c("no Host header", { raw: `GET /${code} HTTP/1.1\r\nConnection: close\r\n\r\n`, method: "GET", target: "" }, "<500", { bare: true }),
    c("HTTP/1.0 redirect", { raw: `GET /${code} HTTP/1.0\r\n\r\n`, method: "GET", target: "" }, "<500", { bare: true }),
    c("absolute-form target", { method: "GET", target: `http://evil.example/${code}` }, "<500"),
    c("Host with CR-free junk", { method: "GET", target: `/${code}`, headers: [["Host", `${host}\t<script>`]] }, "<500", { bare: true }),
    c("spoofed X-Forwarded-For (garbage)", { method: "GET", target: `/${code}`, headers: [["X-Forwarded-For", "<script>, ' OR 1=1, ::ffff:, 999.1.1.1"]] }, 302, { check: redirects }),
    c("spoofed X-Forwarded-For (1,000 hops)", { method: "GET", target: `/${code}`, headers: [["X-Forwarded-For", Array.from({ length: 1000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`).join(", ")]] }, 302, { check: redirects }),
    c("spoofed X-Forwarded-For on sign-in", { method: "POST", target: "/api/login", headers: [["Content-Type", "application/json"], ["X-Forwarded-For", "1.2.3.4"], ["X-Real-IP", "1.2.3.4"]], body: login }, "4xx"),
    c("spoofed CDN country headers", { method: "GET", target: `/${code}`, headers: [["CF-IPCountry", "<script>"], ["CF-IPCity", "%ff%00"], ["X-Forwarded-For", "8.8.8.8"]] }, 302, { check: redirects }),
    c("X-Forwarded-Host and -Proto", { method: "GET", target: `/${code}`, headers: [["X-Forwarded-Host", "evil.example"], ["X-Forwarded-Proto", "javascript"]] }, 302, { check: redirects }),
    c("X-HTTP-Method-Override", { method: "POST", target: `/api/topics/${fx.mallory.values.topicId}`, headers: [["Content-Type", "application/json"], ["Cookie", mal], ["Origin", origin], ["X-HTTP-Method-Override", "DELETE"]], body: "{}" }, "4xx"),
    c("obs-text bytes in a header", { method: "GET", target: "/api/health", headers: [["X-Weird", "\xff\xfe\x80"]] }, "<500", { bare: true }),
    c("huge query string (6 KB)", { method: "GET", target: `/${code}?${"q=1&".repeat(1500)}` }, "<500", { bare: true }),
    c("bad escapes in the query", { method: "GET", target: `/${code}?qr=%ff&x=%` }, 302, { check: redirects }),
    c("bad escapes in an API query", { method: "GET", target: "/api/pic-drift-links/?includeRoot=%ff&%=%", headers: [["Cookie", mal]] }, "2xx|4xx"),
    c("unknown method", { method: "FOO", target: "/api/topics", headers: [["Cookie", mal]] }, "<500", { bare: true }),
    c("TRACE", { method: "TRACE", target: "/api/user", headers: [["Cookie", mal]] }, "<500", { bare: true, check: (r) => (r.text.includes(mal.split("=")[1]!) ? "echoed the session cookie" : null) }),
    c("OPTIONS on an API route", { method: "OPTIONS", target: "/api/topics", headers: [["Origin", "http://evil.example"], ["Access-Control-Request-Method", "DELETE"]] }, "<500", {
      check: (r) => (r.headers.get("access-control-allow-origin")?.some((v) => v === "*" || v.includes("evil")) ? "allows a foreign origin" : null),
    }),
    c("unsatisfiable Range on a vendor file", { method: "GET", target: "/vendor/ffmpeg-0.12.10/const.js", headers: [["Range", "bytes=999999999-"]] }, "<500"),
    c("HEAD on a redirect", { method: "HEAD", target: `/${code}` }, 302),
  ];
}

/**
 * A script ignoring its API key's limit (issue 14): the count goes down to 0 in RateLimit-Remaining,
 * then every request (reads and writes alike) is a cheap 429 RATE_LIMITED with Retry-After.
 * Made-up keys are refused (401), never counted as keys. Last in the corpus: the key's one-minute
 * window starts at its first case here and the group takes well under a second.
 */
function rateLimitCases(fx: Fixture): Case[] {
  const group = "API key past its rate limit";
  const key: [string, string] = ["Authorization", `Bearer ${fx.mallory.apiKey}`];
  const field = (r: RawResponse, name: string) => r.headers.get(name)?.[0] ?? null;
  const counted = (want: number) => (r: RawResponse) =>
    field(r, "ratelimit-remaining") === String(want) && field(r, "ratelimit-limit") === String(fx.keyLimit)
      ? null
      : `RateLimit-Limit ${field(r, "ratelimit-limit")}, -Remaining ${field(r, "ratelimit-remaining")} (wanted ${fx.keyLimit}, ${want})`;
  const refused = (r: RawResponse) => {
    const retry = Number(field(r, "retry-after"));
    if (!(retry >= 1 && retry <= 60)) return `Retry-After ${field(r, "retry-after")}`;
    if (!r.text.includes('"code":"RATE_LIMITED"')) return "not the RATE_LIMITED error";
    return counted(0)(r);
  };
  const cases: Case[] = [];
  for (let left = fx.keyLimit - 1; left >= 0; left--) cases.push({ group, req: { method: "GET", target: "/api/links", headers: [key] }, expect: 200, check: counted(left) });
  const body = JSON.stringify({ originalUrl: "https://example.com/over-the-limit", title: "over the limit" });
  for (const req of [
    { method: "GET", target: "/api/links", headers: [key] },
    { method: "POST", target: "/api/links", headers: [key, ["Content-Type", "application/json"]], body },
    { method: "DELETE", target: `/api/links/${fx.mallory.values.mainLinkId}`, headers: [key] },
  ] as RawRequest[])
    cases.push({ group, req, expect: 429, check: refused });
  for (const made of ["tl_" + "A".repeat(43), "tl_" + "%ff".repeat(15), "x".repeat(4000)])
    cases.push({ group: "made-up API key", req: { method: "GET", target: "/api/links", headers: [["Authorization", `Bearer ${made}`]] }, expect: 401 });
  return cases;
}

/** Path traversal and odd paths: never a file from outside the bundle, never a 5xx. */
function traversalCases(fx: Fixture): Case[] {
  const leaks = (r: RawResponse) => {
    for (const sign of ["root:x:0:0", '"devDependencies"', "CREATE TABLE", "SQLite format 3", "[core]"]) if (r.text.includes(sign)) return `leaked a file (${sign})`;
    return null;
  };
  const targets = [
    "/../../../../etc/passwd",
    "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "/vendor/..%2f..%2fpackage.json",
    "/vendor/ffmpeg-0.12.10/..%2f..%2f..%2f..%2fetc%2fpasswd",
    "/vendor/ffmpeg-0.12.10/%2e%2e/%2e%2e/%2e%2e/package.json",
    "/vendor/ffmpeg-0.12.10/..\\..\\..\\etc\\passwd",
    "/chunk-..%2f..%2fpackage.json",
    "/api/../../etc/passwd",
    "/api/topics/..%2f..%2fuser",
    "/l/..%2f..%2fetc%2fpasswd",
    "//etc/passwd",
    "/.git/config",
    "/data/threadlink.db",
    "/%00",
    "/a%00b",
    "/api/topics/1%00",
    `/l/${"a".repeat(5000)}`,
    "/%F0%9F%98%80",
    "/api/links/redirect/",
  ];
  return targets.map((target) => ({
    group: "path traversal and odd paths",
    req: { method: "GET", target, headers: [["Cookie", fx.mallory.cookie]] as [string, string][] },
    expect: "<500" as Expect,
    json: false,
    check: leaks,
  }));
}
