// The contract test (issue 14): the OpenAPI document covers every route of the app, is a valid
// OpenAPI 3.1 document, and every operation it documents answers a real request (real app,
// real SQLite file) with a response that validates against the document's schema for that
// status (./conformance.ts: ajv, JSON Schema 2020-12, with the document's own components).
import { describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { setup } from "../test/helpers";
import { documentChecker, type OpenApiDoc } from "./conformance";
import { openApiPath } from "./document";
import { FRACTION_FIELDS } from "./fields";
import { OPERATIONS } from "./operations";

/**
 * Routes of the app that are not part of the API, and why. Everything else the router knows
 * must be in the document: a route added without documentation fails "every route is documented".
 */
const NOT_API: { pattern: RegExp; why: string }[] = [
  { pattern: /^GET \/$/, why: "the web app's page (or, on the brand domain, the root link's redirect)" },
  { pattern: /^GET \/\*$/, why: "the web app's pages" },
  { pattern: /^GET \/auth$/, why: "the web app's sign-in page (its HTML names the page's chunks as preloads)" },
  { pattern: /^GET \/(chunk|asset)-[\w-]+\.\w+$/, why: "the web app's hashed files" },
  { pattern: /^GET \/[\w.-]+\.(ico|png|svg|webmanifest|txt)$/, why: "the web app's static files" },
  { pattern: /^GET \/vendor\//, why: "the video engine's files (vendor assets)" },
  { pattern: /^GET \/(l\/|r\/)?\{code\}$/, why: "short-link redirects for visitors, not API calls" },
  { pattern: /^GET \/public\/stats\/\{token\}$/, why: "a published link's stats page for visitors (HTML), not an API call" },
  { pattern: /^POST \/(l\/|r\/|api\/links\/redirect\/)?\{code\}$/, why: "a protected link's password form, posted by visitors' browsers" },
  { pattern: /^(GET|ALL|OPTIONS) \/api\/\*$/, why: "the catch-all that answers unknown /api paths with 404 (a known path with another method: 405) in the error shape" },
];

const t = await setup();
const doc = (await t.call("GET", "/api/openapi.json")).json as OpenApiDoc;
type DocResponse = { content?: Record<string, unknown>; headers?: Record<string, unknown> };

type Answer = Awaited<ReturnType<typeof t.call>>;

const checker = documentChecker(doc);

/** Checks an answer against the document: its status is documented, and its body fits. */
function conforms(method: string, path: string, res: Answer) {
  expect(checker.problems(method, path, res)).toEqual([]);
}

test("the document is a valid OpenAPI 3.1 document", async () => {
  const result = await new Validator().validate(structuredClone(doc));
  expect(result.errors ?? null).toBeNull();
  expect(result.valid).toBe(true);
});

test("every request example in the document fits its own request schema", () => {
  const checked: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const body = (op as { requestBody?: { content: Record<string, { example?: unknown }> } }).requestBody?.content["application/json"];
      if (body?.example === undefined) continue;
      expect(checker.requestProblems(method, path, body.example), `${method} ${path}'s example`).toEqual([]);
      checked.push(`${method} ${path}`);
    }
  }
  expect(checked.length).toBeGreaterThan(10);
});

test("the 413 and 415 texts hold for every kind of body the document takes (JSON, and the import's CSV file)", () => {
  const full = doc as unknown as { info: { description: string }; components: { responses: Record<string, { description: string }> } };
  const resolve = (r: object) => ("$ref" in r ? full.components.responses[String(r.$ref).split("/").pop()!]! : r) as { description: string };
  const types = new Set<string>();
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const content = (op as { requestBody?: { content: Record<string, unknown> } }).requestBody?.content;
      if (!content) continue;
      for (const type of Object.keys(content)) {
        types.add(type);
        // A CSV upload refused for its Content-Type is not "not JSON".
        if (type !== "application/json") expect(resolve(op.responses["415"]!).description, `${method} ${path}'s 415`).not.toMatch(/JSON/);
      }
    }
  }
  expect([...types].sort()).toEqual(["application/json", "text/csv"]);
  // The error table on /api/docs names both media types and both size limits.
  for (const text of ["`Content-Type: application/json`", "`text/csv`", "1 MB", "10 MB"]) expect(full.info.description).toContain(text);
});

test("a documented request body (or query) is the schema its route validates with, not a copy", () => {
  const byKey = new Map(OPERATIONS.map((op) => [`${op.method} ${openApiPath(op.path)}`, op]));
  // jsonBody (src/http/bodyLimit.ts) wraps a schema by a shallow copy: its entries are the schema's own.
  const same = (a: unknown, b: unknown) => a !== undefined && (a === b || (a as { entries?: unknown }).entries === (b as { entries?: unknown }).entries);
  const checked: string[] = [];
  for (const r of t.app.routes) {
    const key = `${r.method} ${openApiPath(r.path)}`;
    const op = byKey.get(key);
    if (!op) continue;
    const hooks = r.hooks as { body?: unknown; query?: unknown };
    // A body is always the route's to validate; a query only where the route declares one (the
    // analytics, list and import handlers read their query parameters themselves).
    for (const part of ["body", "query"] as const) {
      if (!hooks[part] && (part === "query" || !op[part])) continue;
      expect(same(hooks[part], op[part]), `${key}: the documented ${part} is the route's own schema`).toBe(true);
      checked.push(`${key} ${part}`);
    }
  }
  expect(checked.length).toBeGreaterThanOrEqual(15);
});

test("every route of the app is documented, and every documented operation is a route", () => {
  const routes = new Set<string>();
  for (const r of t.app.routes) {
    const key = `${r.method} ${openApiPath(r.path)}`;
    if (NOT_API.some((x) => x.pattern.test(key))) continue;
    routes.add(key);
  }
  const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)));
  expect([...routes].filter((r) => !documented.has(r)), "routes without documentation").toEqual([]);
  expect([...documented].filter((d) => !routes.has(d)), "documented operations that are no route").toEqual([]);
});

// ---------------------------------------------------------------------------------------------
// Every documented operation, called for real. Data is made through the API as a client would.

const owner = await t.signUp("contract-owner");
const member = await t.signUp("contract-member");
const asOwner = { cookie: owner.cookie };
const asMember = { cookie: member.cookie };
const created = async (method: string, path: string, body: unknown, who = asOwner) => {
  const r = await t.call(method, path, { body: body as Record<string, unknown>, ...who });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.json;
};
const key = (await created("POST", "/api/api-keys", { name: "contract", scope: "read-write" })).key as string;
const asKey = { headers: { authorization: `Bearer ${key}` } };
const link = await created("POST", "/api/links", { originalUrl: "https://example.com/a", title: "A link" });
const brand = await created("POST", "/api/pic-drift-links", { originalUrl: "https://example.com/b", title: "A brand link", shortCode: "brand-one" });
const tag = await created("POST", "/api/tags", { name: "contract-tag", color: "teal" });
const topic = await created("POST", "/api/topics", { name: "Contract topic", accessType: "public" });
const title = await created("POST", `/api/${owner.user.username}/${topic.linkSlug}/titles`, { name: "Welcome", keyPhrase: "Hi", version: 1 });
const invite = await created("POST", "/api/invites", {});
// The member accepts a first invite, which gives the owner a notification to read.
await created("POST", `/api/invites/${(await created("POST", "/api/invites", {})).code}/accept`, undefined, asMember);
const notification = (await created("GET", "/api/notifications", undefined)).notifications[0];
// A third user accepts the owner's second invite.
const third = await t.signUp("contract-third");
const otherKey = await created("POST", "/api/api-keys", { name: "to revoke", scope: "read" });
const qrStyle = await created("POST", "/api/qr-styles", { name: "Contract style", foreground: "#123456", background: "#ffffff", dots: "dots", corners: "rounded", frameText: "Scan me" });
// A webhook with one delivery queued (its receiver does not exist: the delivery stays pending or fails).
const hook = await created("POST", "/api/webhooks", { url: "https://hooks.example.invalid/in", events: ["link.created"] });
await created("POST", "/api/links", { originalUrl: "https://example.com/hooked", title: "Hooked" });
const delivery = (await created("GET", `/api/webhooks/${hook.id}/deliveries`, undefined))[0];
// A link of its own for the public stats calls (the links above are edited and deleted by theirs).
const statsLink = await created("POST", "/api/links", { originalUrl: "https://example.com/stats", title: "Stats" });
const utm = await created("POST", "/api/utm-templates", { name: "To delete", source: "x" });
const utmRenamed = await created("POST", "/api/utm-templates", { name: "To rename", source: "x" });

/** `stream`: an endless answer (Server-Sent Events): its status and headers are checked, then it is closed. */
type Call = { method: string; path: string; opts?: Parameters<typeof t.call>[2]; status: number; stream?: true };
const T = `/api/${owner.user.username}/${topic.linkSlug}/titles`;

/** One real request per documented operation: its documented path, the request, the status expected. */
const CALLS: Record<string, Call> = {
  "GET /api/health": { method: "GET", path: "/api/health", status: 200 },
  "GET /api/config": { method: "GET", path: "/api/config", status: 200 },
  "POST /api/register": {
    method: "POST",
    path: "/api/register",
    opts: { body: { username: "contract-new", password: "correct horse battery", email: "new@example.test" } },
    status: 201,
  },
  "POST /api/login": { method: "POST", path: "/api/login", opts: { body: { username: "contract-new", password: "correct horse battery" } }, status: 200 },
  "GET /api/user": { method: "GET", path: "/api/user", opts: asOwner, status: 200 },
  "POST /api/subscription/upgrade": { method: "POST", path: "/api/subscription/upgrade", opts: asMember, status: 200 },
  "GET /api/links": { method: "GET", path: "/api/links", opts: asKey, status: 200 },
  "POST /api/links": {
    method: "POST",
    path: "/api/links",
    opts: { ...asKey, body: { originalUrl: "https://example.com/key", title: "Made with a key", expiresAt: "2099-01-01T00:00:00Z" } },
    status: 201,
  },
  "PUT /api/links/{id}": {
    method: "PUT",
    path: `/api/links/${link.id}`,
    opts: { ...asKey, body: { originalUrl: "https://example.com/edited", title: "Edited", description: "now with text" } },
    status: 200,
  },
  "PATCH /api/links/{id}": { method: "PATCH", path: `/api/links/${link.id}`, opts: { ...asKey, body: { title: "Patched" } }, status: 200 },
  "GET /api/links/{id}": { method: "GET", path: `/api/links/${link.id}`, opts: asKey, status: 200 },
  "GET /api/links/lookup": { method: "GET", path: `/api/links/lookup?code=${link.shortCode}`, opts: asKey, status: 200 },
  "GET /api/links/{id}/analytics": { method: "GET", path: `/api/links/${link.id}/analytics?days=7`, opts: asKey, status: 200 },
  "GET /api/links/{id}/clicks.csv": { method: "GET", path: `/api/links/${link.id}/clicks.csv`, opts: asKey, status: 200 },
  "POST /api/links/bulk": {
    method: "POST",
    path: "/api/links/bulk",
    opts: { ...asKey, body: { links: [{ originalUrl: "https://example.com/bulk", title: "Bulk" }, { originalUrl: "ftp://example.com", title: "Refused" }] } },
    status: 200,
  },
  "POST /api/links/import": {
    method: "POST",
    path: "/api/links/import",
    opts: { headers: { ...asKey.headers, "content-type": "text/csv" }, raw: "url,code,title\r\nhttps://example.com/imported,,Imported\r\nnot a url,,Bad\r\n" },
    status: 200,
  },
  "GET /api/links/export.csv": { method: "GET", path: "/api/links/export.csv", opts: asKey, status: 200 },
  "GET /api/links/export.json": { method: "GET", path: "/api/links/export.json", opts: asKey, status: 200 },
  "GET /api/links/redirect/{code}": { method: "GET", path: `/api/links/redirect/${link.shortCode}`, status: 302 },
  "GET /api/pic-drift-links": { method: "GET", path: "/api/pic-drift-links?includeRoot=true", opts: asOwner, status: 200 },
  "POST /api/pic-drift-links": {
    method: "POST",
    path: "/api/pic-drift-links",
    opts: { ...asOwner, body: { originalUrl: "https://example.com/c", title: "Another", shortCode: "brand-two" } },
    status: 201,
  },
  "PUT /api/pic-drift-links/{id}": {
    method: "PUT",
    path: `/api/pic-drift-links/${brand.id}`,
    opts: { ...asOwner, body: { shortCode: "brand-renamed", originalUrl: "https://example.com/b2", title: "Renamed" } },
    status: 200,
  },
  "PATCH /api/pic-drift-links/{id}": { method: "PATCH", path: `/api/pic-drift-links/${brand.id}`, opts: { ...asOwner, body: { title: "Patched brand" } }, status: 200 },
  "GET /api/pic-drift-links/{id}": { method: "GET", path: `/api/pic-drift-links/${brand.id}`, opts: asOwner, status: 200 },
  "GET /api/pic-drift-links/lookup": { method: "GET", path: "/api/pic-drift-links/lookup?code=brand-two", opts: asOwner, status: 200 },
  "GET /api/pic-drift-links/{id}/analytics": { method: "GET", path: `/api/pic-drift-links/${brand.id}/analytics`, opts: asOwner, status: 200 },
  "GET /api/pic-drift-links/{id}/clicks.csv": { method: "GET", path: `/api/pic-drift-links/${brand.id}/clicks.csv`, opts: asOwner, status: 200 },
  "POST /api/pic-drift-links/{id}/reset-clicks": { method: "POST", path: `/api/pic-drift-links/${brand.id}/reset-clicks`, opts: asOwner, status: 200 },
  "GET /api/tags": { method: "GET", path: "/api/tags", opts: asKey, status: 200 },
  "POST /api/tags": { method: "POST", path: "/api/tags", opts: { ...asKey, body: { name: "Made with a key", color: "blue" } }, status: 201 },
  "PATCH /api/tags/{id}": { method: "PATCH", path: `/api/tags/${tag.id}`, opts: { ...asKey, body: { name: "contract-renamed" } }, status: 200 },
  "GET /api/tags/{id}/analytics": { method: "GET", path: `/api/tags/${tag.id}/analytics?days=7`, opts: asKey, status: 200 },
  "DELETE /api/tags/{id}": { method: "DELETE", path: `/api/tags/${tag.id}`, opts: asKey, status: 200 },
  "GET /api/topics": { method: "GET", path: "/api/topics", opts: asOwner, status: 200 },
  "POST /api/topics": { method: "POST", path: "/api/topics", opts: { ...asOwner, body: { name: "Second topic" } }, status: 201 },
  "POST /api/topics/reorder": { method: "POST", path: "/api/topics/reorder", opts: { ...asOwner, body: { fromIndex: 0, toIndex: 1 } }, status: 200 },
  "PUT /api/topics/{id}": { method: "PUT", path: `/api/topics/${topic.id}`, opts: { ...asOwner, body: { name: "Renamed topic" } }, status: 200 },
  "GET /api/topics/{id}/contact.vcf": { method: "GET", path: `/api/topics/${topic.id}/contact.vcf`, opts: asOwner, status: 200 },
  "GET /api/topic/{username}/{topicSlug}": { method: "GET", path: `/api/topic/${owner.user.username}/${topic.linkSlug}`, opts: asMember, status: 200 },
  "POST /api/topic/{username}/{topicSlug}/open": {
    method: "POST",
    path: `/api/topic/${owner.user.username}/${topic.linkSlug}/open`,
    opts: asMember,
    status: 200,
  },
  "GET /api/shared-topics": { method: "GET", path: "/api/shared-topics", opts: asMember, status: 200 },
  "GET /api/sharing-users": { method: "GET", path: "/api/sharing-users", opts: asMember, status: 200 },
  "GET /api/share/{username}": { method: "GET", path: `/api/share/${owner.user.username}`, opts: asMember, status: 200 },
  "GET /api/{username}/{topicSlug}/titles": { method: "GET", path: T, opts: asMember, status: 200 },
  "POST /api/{username}/{topicSlug}/titles": { method: "POST", path: T, opts: { ...asOwner, body: { name: "Welcome", keyPhrase: "Hi again" } }, status: 201 },
  "PUT /api/{username}/{topicSlug}/titles/{id}": {
    method: "PUT",
    path: `${T}/${title.id}?updateAllVersions=false`,
    opts: { ...asOwner, body: { notes: "edited" } },
    status: 200,
  },
  "POST /api/invites": { method: "POST", path: "/api/invites", opts: asOwner, status: 201 },
  "GET /api/invites/{code}": { method: "GET", path: `/api/invites/${invite.code}`, status: 200 },
  "POST /api/invites/{code}/accept": { method: "POST", path: `/api/invites/${invite.code}/accept`, opts: { cookie: third.cookie }, status: 200 },
  "GET /api/notifications": { method: "GET", path: "/api/notifications", opts: asOwner, status: 200 },
  "POST /api/notifications/{id}/read": { method: "POST", path: `/api/notifications/${notification.id}/read`, opts: asOwner, status: 200 },
  "POST /api/notifications/read-all": { method: "POST", path: "/api/notifications/read-all", opts: asOwner, status: 200 },
  "GET /api/api-keys": { method: "GET", path: "/api/api-keys", opts: asOwner, status: 200 },
  "POST /api/api-keys": { method: "POST", path: "/api/api-keys", opts: { ...asOwner, body: { name: "another", scope: "read", only: "topics" } }, status: 201 },
  "GET /api/links/{id}/smart": { method: "GET", path: `/api/links/${link.id}/smart`, opts: asKey, status: 200 },
  "PUT /api/links/{id}/smart": {
    method: "PUT",
    path: `/api/links/${link.id}/smart`,
    opts: { ...asKey, body: { maxClicks: 100, rules: [{ name: "iPhone", when: { os: ["ios"] }, url: "https://apps.apple.com/app/1" }] } },
    status: 200,
  },
  "POST /api/links/{id}/simulate": { method: "POST", path: `/api/links/${link.id}/simulate`, opts: { ...asKey, body: { os: "ios" } }, status: 200 },
  "GET /api/pic-drift-links/{id}/smart": { method: "GET", path: `/api/pic-drift-links/${brand.id}/smart`, opts: asOwner, status: 200 },
  "PUT /api/pic-drift-links/{id}/smart": {
    method: "PUT",
    path: `/api/pic-drift-links/${brand.id}/smart`,
    opts: { ...asOwner, body: { split: { variants: [{ url: "https://example.com/a", weight: 1 }, { url: "https://example.com/b", weight: 1 }] } } },
    status: 200,
  },
  "POST /api/pic-drift-links/{id}/simulate": { method: "POST", path: `/api/pic-drift-links/${brand.id}/simulate`, opts: { ...asOwner, body: { useRequest: true } }, status: 200 },
  "GET /api/utm-templates": { method: "GET", path: "/api/utm-templates", opts: asKey, status: 200 },
  "POST /api/utm-templates": { method: "POST", path: "/api/utm-templates", opts: { ...asKey, body: { name: "Newsletter", source: "newsletter", medium: "email" } }, status: 201 },
  "PUT /api/utm-templates/{id}": { method: "PUT", path: `/api/utm-templates/${utmRenamed.id}`, opts: { ...asKey, body: { name: "Renamed", source: "newsletter" } }, status: 200 },
  "DELETE /api/utm-templates/{id}": { method: "DELETE", path: `/api/utm-templates/${utm.id}`, opts: asOwner, status: 200 },
  "DELETE /api/api-keys/{id}": { method: "DELETE", path: `/api/api-keys/${otherKey.id}`, opts: asOwner, status: 200 },
  "GET /api/qr-styles": { method: "GET", path: "/api/qr-styles", opts: asOwner, status: 200 },
  "POST /api/qr-styles": { method: "POST", path: "/api/qr-styles", opts: { ...asOwner, body: { name: "Another style", foreground: "#000", background: "#fff", dots: "square", corners: "square" } }, status: 201 },
  "PUT /api/qr-styles/{id}": { method: "PUT", path: `/api/qr-styles/${qrStyle.id}`, opts: { ...asKey, body: { ...qrStyle, name: "Renamed style" } }, status: 200 },
  "GET /api/webhooks": { method: "GET", path: "/api/webhooks", opts: asOwner, status: 200 },
  "POST /api/webhooks": { method: "POST", path: "/api/webhooks", opts: { ...asOwner, body: { url: "https://hooks.example.invalid/two", events: ["clicks.recorded"], linkIds: [link.id] } }, status: 201 },
  "PUT /api/webhooks/{id}": {
    method: "PUT",
    path: `/api/webhooks/${hook.id}`,
    opts: { ...asOwner, body: { url: "https://hooks.example.invalid/in", events: ["link.created"], enabled: true, rotateSecret: true } },
    status: 200,
  },
  "GET /api/webhooks/{id}/deliveries": { method: "GET", path: `/api/webhooks/${hook.id}/deliveries`, opts: asOwner, status: 200 },
  "GET /api/webhooks/{id}/deliveries/{deliveryId}": { method: "GET", path: `/api/webhooks/${hook.id}/deliveries/${delivery.id}`, opts: asOwner, status: 200 },
  "POST /api/webhooks/{id}/deliveries/{deliveryId}/redeliver": { method: "POST", path: `/api/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`, opts: asOwner, status: 201 },
  "GET /api/openapi.json": { method: "GET", path: "/api/openapi.json", status: 200 },
  "GET /api/docs": { method: "GET", path: "/api/docs", status: 200 },
  // Deletions last: the objects above are used until here.
  "DELETE /api/{username}/{topicSlug}/titles/{id}": { method: "DELETE", path: `${T}/${title.id}?allVersions=true`, opts: asOwner, status: 204 },
  "DELETE /api/topics/{id}": { method: "DELETE", path: `/api/topics/${topic.id}`, opts: asOwner, status: 204 },
  "DELETE /api/links/{id}": { method: "DELETE", path: `/api/links/${link.id}`, opts: asKey, status: 200 },
  "DELETE /api/pic-drift-links/{id}": { method: "DELETE", path: `/api/pic-drift-links/${brand.id}`, opts: asOwner, status: 200 },
  "GET /api/sharing-members": { method: "GET", path: "/api/sharing-members", opts: asOwner, status: 200 },
  "DELETE /api/sharing-members/{id}": { method: "DELETE", path: `/api/sharing-members/${third.user.id}`, opts: asOwner, status: 204 },
  "DELETE /api/sharing-users/{id}": { method: "DELETE", path: `/api/sharing-users/${owner.user.id}`, opts: asMember, status: 204 },
  "GET /api/events/stream": { method: "GET", path: "/api/events/stream", opts: asOwner, status: 200, stream: true },
  "GET /api/stats/{linkId}/public": { method: "GET", path: `/api/stats/${statsLink.id}/public`, opts: asKey, status: 200 },
  "POST /api/stats/{linkId}/public": { method: "POST", path: `/api/stats/${statsLink.id}/public`, opts: asKey, status: 200 },
  "DELETE /api/stats/{linkId}/public": { method: "DELETE", path: `/api/stats/${statsLink.id}/public`, opts: asKey, status: 200 },
  "DELETE /api/webhooks/{id}": { method: "DELETE", path: `/api/webhooks/${hook.id}`, opts: asOwner, status: 200 },
  "DELETE /api/qr-styles/{id}": { method: "DELETE", path: `/api/qr-styles/${qrStyle.id}`, opts: asOwner, status: 200 },
  "POST /api/logout": { method: "POST", path: "/api/logout", opts: asMember, status: 200 },
};

/** A streaming answer's status and headers; the stream itself is closed unread. */
async function openStream(call: Call) {
  const abort = new AbortController();
  const res = await t.app.handle(new Request(`http://localhost:3000${call.path}`, { method: call.method, headers: { host: "localhost:3000", ...call.opts?.headers, ...(call.opts?.cookie ? { cookie: call.opts.cookie } : {}) }, signal: abort.signal }));
  abort.abort();
  await res.body?.cancel().catch(() => {});
  return { status: res.status, headers: res.headers, text: "", json: null };
}

describe("every documented operation answers as documented", () => {
  test("each documented operation has a call here", () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.filter((op) => !(op in CALLS)).sort(), "documented operations no test calls").toEqual([]);
  });

  for (const [op, call] of Object.entries(CALLS)) {
    test(op, async () => {
      const [method, path] = op.split(" ") as [string, string];
      const res = call.stream ? await openStream(call) : await t.call(call.method, call.path, call.opts);
      expect(res.status, res.text.slice(0, 300)).toBe(call.status);
      conforms(method, path, res);
    });
  }
});

describe("failures answer in the documented error shape", () => {
  for (const [op, call] of Object.entries(CALLS)) {
    const [method, path] = op.split(" ") as [string, string];
    const security = doc.paths[path]?.[method.toLowerCase()]?.security;
    if (!security?.length) continue;
    test(`${op} without credentials is 401`, async () => {
      const res = await t.call(call.method, call.path, { body: call.opts?.body });
      expect(res.status).toBe(401);
      conforms(method, path, res);
    });
  }

  test("a body that breaks the schema is 400 VALIDATION with the field", async () => {
    const res = await t.call("POST", "/api/links", { ...asKey, body: { originalUrl: "ftp://example.com", title: "x" } });
    expect(res.status).toBe(400);
    conforms("POST", "/api/links", res);
    expect(res.json.error.code).toBe("VALIDATION");
    expect(res.json.error.fields).toEqual({ originalUrl: "Only http:// and https:// links can be shortened" });
  });

  test("a read-only key on a write is 403, someone else's link 404, a taken code 409", async () => {
    const readKey = (await created("POST", "/api/api-keys", { name: "ro", scope: "read" })).key as string;
    const ro = await t.call("POST", "/api/links", { headers: { authorization: `Bearer ${readKey}` }, body: { originalUrl: "https://example.com/x", title: "x" } });
    expect(ro.status).toBe(403);
    conforms("POST", "/api/links", ro);
    const mine = await created("POST", "/api/links", { originalUrl: "https://example.com/mine", title: "Mine", shortCode: "contract-taken" });
    const theirs = await t.call("GET", `/api/links/${mine.id}/analytics`, { cookie: third.cookie });
    expect(theirs.status).toBe(404);
    conforms("GET", "/api/links/{id}/analytics", theirs);
    const taken = await t.call("POST", "/api/links", { ...asKey, body: { originalUrl: "https://example.com/y", title: "y", shortCode: "contract-taken" } });
    expect(taken.status).toBe(409);
    conforms("POST", "/api/links", taken);
  });
});

test("a key past its request limit gets the documented 429, with Retry-After and the RateLimit fields", async () => {
  const limited = await setup({ API_RATE_LIMIT: "1" });
  const user = await limited.signUp("contract-limited");
  const made = await limited.call("POST", "/api/api-keys", { cookie: user.cookie, body: { name: "limited", scope: "read" } });
  const headers = { authorization: `Bearer ${made.json.key}` };
  const first = await limited.call("GET", "/api/links", { headers });
  expect(first.status).toBe(200);
  conforms("GET", "/api/links", first);
  const documented = Object.keys((doc.paths["/api/links"]!.get!.responses["200"] as DocResponse).headers ?? {});
  for (const name of ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy"]) {
    expect(documented).toContain(name);
    expect(first.headers.get(name)).not.toBeNull();
  }
  const second = await limited.call("GET", "/api/links", { headers });
  expect(second.status).toBe(429);
  conforms("GET", "/api/links", second);
  expect(Number(second.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
});

// ---------------------------------------------------------------------------------------------
// Typing (issue 23): a regression in what the document says about a field fails here.

type Node = Record<string, unknown>;
/** Every property schema of the document, with where it is and whether it is in an answer. */
function properties() {
  const out: { where: string; name: string; schema: Node; response: boolean }[] = [];
  const full = doc as unknown as { paths: Record<string, Record<string, Node>>; components: { schemas: Record<string, Node>; responses: Record<string, Node> } };
  const requests = new Set<string>();
  for (const ops of Object.values(full.paths)) {
    for (const op of Object.values(ops)) {
      const ref = JSON.stringify((op.requestBody as Node | undefined) ?? {}).match(/#\/components\/schemas\/(\w+)/);
      if (ref) requests.add(ref[1]!);
    }
  }
  const walk = (node: unknown, where: string, response: boolean) => {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}/${i}`, response));
    const n = node as Node;
    for (const [name, schema] of Object.entries((n.properties as Record<string, Node> | undefined) ?? {})) out.push({ where: `${where}.${name}`, name, schema, response });
    for (const [k, v] of Object.entries(n)) if (k !== "example" && k !== "examples") walk(v, `${where}/${k}`, response);
  };
  for (const [name, s] of Object.entries(full.components.schemas)) walk(s, `#/components/schemas/${name}`, !requests.has(name));
  for (const [name, s] of Object.entries(full.components.responses)) walk(s, `#/components/responses/${name}`, true);
  for (const [path, ops] of Object.entries(full.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      walk(op.requestBody, `${method} ${path} body`, false);
      walk(op.responses, `${method} ${path} responses`, true);
    }
  }
  return out;
}
/** The non-null branches of a schema (a nullable field is anyOf [T, null]). */
const branches = (s: Node): Node[] => ((s.anyOf as Node[] | undefined) ?? [s]).filter((b) => b.type !== "null");

describe("the document types everything", () => {
  const props = properties();

  test("every property has a description (its schema's, or the glossary's)", () => {
    expect(props.length).toBeGreaterThan(300);
    expect(props.filter((p) => !p.schema.$ref && !p.schema.description).map((p) => p.where)).toEqual([]);
  });

  test("every number the server sends is an integer, but a fraction by nature (an Accept-Language quality)", () => {
    const numbers = props.filter((p) => p.response && branches(p.schema).some((b) => b.type === "number"));
    expect(numbers.filter((p) => !FRACTION_FIELDS.has(p.name)).map((p) => p.where)).toEqual([]);
    // The simulator answers q = 0.9 for "it;q=0.9": an integer there would be a lie.
    expect(numbers.map((p) => p.name)).toContain("q");
  });

  test("timestamps the server sends are date-time, URLs the server makes uri, addresses kept as entered iri", () => {
    const wrong = props.filter(
      (p) =>
        p.response &&
        branches(p.schema).some((b) => b.type === "string" && !b.enum) &&
        ((/(At|^timestamp|^since|^lastClick|^start)$/.test(p.name) && !branches(p.schema).every((b) => b.format === "date-time")) ||
          (/^(shortUrl|publicUrl|shortBaseUrl|brandBaseUrl)$/.test(p.name) && !branches(p.schema).every((b) => b.format === "uri")) ||
          // Kept as entered (https://example.com/über): an IRI, not a URI.
          (/^(originalUrl|url|fallbackUrl)$/.test(p.name) && !branches(p.schema).every((b) => b.format === "iri"))),
    );
    expect(wrong.map((p) => p.where)).toEqual([]);
    // And there are such fields to check.
    expect(props.filter((p) => branches(p.schema).some((b) => b.format === "date-time")).length).toBeGreaterThan(20);
  });

  test("no array is of unknown items (bulk's links are CreateLinkBody)", () => {
    const untyped: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (!node || typeof node !== "object") return;
      const n = node as Node;
      if (n.type === "array" && (!n.items || Object.keys(n.items as Node).length === 0)) untyped.push(where);
      for (const [k, v] of Object.entries(n)) if (k !== "example") walk(v, `${where}/${k}`);
    };
    walk(doc, "#");
    expect(untyped).toEqual([]);
    const bulk = (doc as unknown as { components: { schemas: Record<string, { properties: Record<string, Node> }> } }).components.schemas.BulkCreateBody!;
    expect(bulk.properties.links!.items).toEqual({ $ref: "#/components/schemas/CreateLinkBody" });
  });

  test("every operation has a description, every request body is a named component", () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const o = op as unknown as { description?: string; requestBody?: { content: Record<string, { schema: Node }> } };
        expect(o.description?.length ?? 0, `${method} ${path}`).toBeGreaterThan(10);
        const json = o.requestBody?.content["application/json"];
        if (json) expect(json.schema.$ref, `${method} ${path}'s body`).toMatch(/^#\/components\/schemas\/\w+Body$/);
      }
    }
  });

  test("path ids are integers, query numbers integers, query flags booleans", () => {
    type Param = { name: string; in: string; schema: Node; description?: string };
    const params = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).flatMap(([method, op]) => ((op as unknown as { parameters?: Param[] }).parameters ?? []).map((p) => ({ ...p, at: `${method} ${path} ${p.name}` }))),
    );
    for (const p of params.filter((p) => p.in === "path" && /^(id|\w+Id)$/.test(p.name))) expect(p.schema.type, p.at).toBe("integer");
    for (const p of params.filter((p) => p.in === "query")) {
      expect(p.description?.length ?? 0, `${p.at} is described`).toBeGreaterThan(5);
      // Text may keep a pattern (the import's brandDomains: domain names); digits may not.
      expect(String(p.schema.pattern ?? ""), `${p.at}: no digits-as-text pattern`).not.toMatch(/^\^(\\d|\[0-9\])/);
      expect(p.schema.enum ?? [], p.at).not.toEqual(["true", "false"]);
      // A choice of numbers is an integer enum (the tag analytics' days was "7" | "30" | "90" to a generated client).
      expect((p.schema.enum as unknown[] | undefined)?.some((x) => typeof x === "string" && /^\d+$/.test(x)) ?? false, `${p.at}: numbers as text`).toBe(false);
    }
    const byName = new Map(params.map((p) => [p.at.replace(/^\w+ /, ""), p.schema]));
    expect(byName.get("/api/links limit")).toMatchObject({ type: "integer", minimum: 1, maximum: 1000 });
    expect(byName.get("/api/pic-drift-links includeRoot")).toEqual({ type: "boolean" });
    expect(byName.get("/api/links/{id}/analytics pageSize")).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 25 });
    expect(byName.get("/api/links/{id}/analytics days")).toMatchObject({ type: "integer", enum: [7, 30, 90] });
    expect(byName.get("/api/tags/{id}/analytics days")).toMatchObject({ type: "integer", enum: [7, 30, 90] });
    expect(byName.get("/api/links/{id}/analytics interval")).toMatchObject({ enum: ["day", "hour"] });
  });

  test("accessType explains each of its words", () => {
    const topic = (doc as unknown as { components: { schemas: Record<string, { properties: Record<string, Node> }> } }).components.schemas.Topic!;
    const about = String(topic.properties.accessType!.description);
    for (const word of ["`personal`", "`private`", "`public`"]) expect(about).toContain(word);
    expect(about).toMatch(/invited members do not see it/);
  });

  test("a path id that is not a number gets the app's 404 or 400 in the error shape, never the framework's", async () => {
    const session = await t.signUp("contract-abc");
    const abcKey = (await created("POST", "/api/api-keys", { name: "abc", scope: "read-write" }, { cookie: session.cookie })).key as string;
    let checked = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!/\{(id|\w+Id)\}/.test(path)) continue;
      for (const [method, op] of Object.entries(ops)) {
        const keyOk = (op.security ?? []).some((s) => "apiKey" in (s as object));
        const who = keyOk ? { headers: { authorization: `Bearer ${abcKey}` } } : { cookie: session.cookie };
        const url = path.replace(/\{(id|\w+Id)\}/g, "abc").replace("{username}", session.user.username).replace("{topicSlug}", "x");
        const res = await t.call(method.toUpperCase(), url, { ...who, ...(method === "get" || method === "delete" ? {} : { body: {} }) });
        expect([400, 404], `${method} ${url}: ${res.text.slice(0, 120)}`).toContain(res.status);
        conforms(method.toUpperCase(), path, res);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(15);
  });
});
