// One declaration of key rights (issue 23): an operation's `auth`/`keyArea` beside its route is
// both what the server enforces and what the document says. Walked over EVERY operation of the
// served document (which the contract test holds equal to the router), never a hand list: a key
// sent to a session-only operation is 403 and changes nothing; a key the document admits is never
// 403 for its rights, whatever else the request gets wrong.
import { describe, expect, test } from "bun:test";
import { setup } from "../test/helpers";
import { KEY_MSG } from "./access";

// Each scenario uses its own keys: more than the default per-user cap.
const t = await setup({ MAX_API_KEYS_PER_USER: "0", API_RATE_LIMIT: "0" });
const alice = await t.signUp("reach-alice");

type Op = { security?: Record<string, string[]>[]; "x-api-key"?: { scope: string; areas: string[] } };
const doc = (await t.call("GET", "/api/openapi.json")).json as { paths: Record<string, Record<string, Op>> };

async function newKey(scope: "read" | "read-write", only: "links" | "topics" | null = null) {
  const r = await t.call("POST", "/api/api-keys", { body: { name: `reach ${scope} ${only}`, scope, only }, cookie: alice.cookie });
  if (r.status !== 201) throw new Error(r.text);
  return r.json.key as string;
}

// Path parameters filled with values that name nothing (a refusal for rights must come before
// any lookup), except the user's own name so title routes reach their topic lookup.
const FILL: Record<string, string> = { id: "999999", deliveryId: "999999", linkId: "999999", code: "no-such-code", username: alice.user.username, topicSlug: "no-such-topic" };
const fill = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => FILL[name] ?? "x");

const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })));
const signedIn = operations.filter((o) => (o.op.security?.length ?? 0) > 0);
const sessionOnly = signedIn.filter((o) => !o.op.security!.some((s) => "apiKey" in s));
const keyAllowed = signedIn.filter((o) => o.op.security!.some((s) => "apiKey" in s));

/** A request with the key as its only credential, and an empty JSON body where one may go. */
const send = (key: string, method: string, path: string) =>
  t.call(method, fill(path), { headers: { authorization: `Bearer ${key}` }, ...(method === "GET" || method === "DELETE" ? {} : { body: {} }) });

const tables = ["short_links", "topics", "api_keys", "sessions", "webhooks", "invites", "notifications", "titles"];
const counts = () => Promise.all(tables.map((x) => t.count(x)));

test("the document names both kinds of operation (the walk below is not empty)", () => {
  expect(sessionOnly.length).toBeGreaterThanOrEqual(10);
  expect(keyAllowed.length).toBeGreaterThanOrEqual(30);
  // Each key-allowed operation states what the key needs (x-api-key), and a session-only one says so.
  for (const o of keyAllowed) expect(o.op["x-api-key"]?.scope, `${o.method} ${o.path}`).toBe(o.method === "GET" ? "read" : "read-write");
  for (const o of sessionOnly) expect(o.op["x-api-key"], `${o.method} ${o.path}`).toBeUndefined();
});

// The rights the path rules gave the operations added beside H-docs (tags and a link's public
// stats page: the links area; the live stream: session only, as it carries every event; saved QR
// styles: no area, so keys limited to one never reach them), now declared beside their routes.
test("tags, public stats, the live stream and QR styles keep the rights the path rules gave them", () => {
  const rights = (method: string, path: string) => {
    const op = doc.paths[path]?.[method];
    if (!op) throw new Error(`${method} ${path} is not in the document`);
    return op["x-api-key"] ?? "session only";
  };
  for (const [method, path] of [["get", "/api/tags"], ["post", "/api/tags"], ["patch", "/api/tags/{id}"], ["delete", "/api/tags/{id}"], ["get", "/api/tags/{id}/analytics"], ["get", "/api/stats/{linkId}/public"], ["post", "/api/stats/{linkId}/public"], ["delete", "/api/stats/{linkId}/public"]] as const) {
    expect(rights(method, path), `${method} ${path}`).toEqual({ scope: method === "get" ? "read" : "read-write", areas: ["links"] });
  }
  expect(rights("get", "/api/events/stream")).toBe("session only");
  for (const [method, path] of [["get", "/api/qr-styles"], ["post", "/api/qr-styles"], ["put", "/api/qr-styles/{id}"], ["delete", "/api/qr-styles/{id}"]] as const) {
    expect(rights(method, path), `${method} ${path}`).toEqual({ scope: method === "get" ? "read" : "read-write", areas: [] });
  }
});

describe("a valid read-write key on every session-only operation is 403 and changes nothing", async () => {
  const key = await newKey("read-write");
  for (const o of sessionOnly) {
    test(`${o.method} ${o.path}`, async () => {
      const before = await counts();
      const res = await send(key, o.method, o.path);
      expect(res.status, res.text.slice(0, 200)).toBe(403);
      expect(res.json.error).toEqual({ code: "FORBIDDEN", message: KEY_MSG.account });
      expect(await counts()).toEqual(before);
    });
  }
});

describe("a key the document admits reaches every key-allowed operation (never 403)", async () => {
  const keys = { "read-write": await newKey("read-write"), read: await newKey("read"), links: await newKey("read-write", "links"), topics: await newKey("read-write", "topics") };
  for (const o of keyAllowed) {
    const rights = o.op["x-api-key"]!;
    test(`${o.method} ${o.path} (${rights.scope}${rights.areas.length ? `, ${rights.areas.join("/")}` : ""})`, async () => {
      // An unlimited read-write key reaches it.
      const res = await send(keys["read-write"], o.method, o.path);
      expect(res.status, res.text.slice(0, 200)).not.toBe(403);
      expect(res.status).not.toBe(401);
      // A read key: exactly the operations whose scope is read.
      const ro = await send(keys.read, o.method, o.path);
      if (rights.scope === "read") expect([401, 403]).not.toContain(ro.status);
      else expect(ro.json?.error).toEqual({ code: "FORBIDDEN", message: KEY_MSG.readOnly });
      // A key limited to an area: exactly the operations of that area.
      for (const area of ["links", "topics"] as const) {
        const limited = await send(keys[area], o.method, o.path);
        if (rights.areas.includes(area)) expect([401, 403], `${area} key`).not.toContain(limited.status);
        else expect(limited.json?.error, `${area} key`).toEqual({ code: "FORBIDDEN", message: area === "links" ? KEY_MSG.onlyLinks : KEY_MSG.onlyTopics });
      }
    });
  }
});
