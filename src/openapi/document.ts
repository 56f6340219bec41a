// Builds the OpenAPI 3.1 document from the operations the features declare (src/shared/apiOperations.ts),
// converting their valibot schemas with the official converter. Built once at start.
import * as v from "valibot";
import { toJsonSchema, toJsonSchemaDefs, type ConversionConfig } from "@valibot/to-json-schema";
import { ErrorBody, statusOf, type ErrorCode } from "../shared/errors";
import { KEY_PREFIX, reachOf, scopeFor } from "../apikeys/access";
import { RATE_LIMIT_DESCRIPTION, RATE_LIMIT_HEADERS, RETRY_AFTER_HEADER, UNLIMITED } from "../http/rateLimit";
import type { Operation, ResponseSpec, Schema } from "../shared/apiOperations";
import { DATE_FIELDS, DATE_TIME_FIELDS, FIELD_DOCS, FRACTION_FIELDS, IRI_FIELDS, URI_FIELDS } from "./fields";

type Json = Record<string, unknown>;

/** Every stable error code, and when the API answers with it. */
export const ERROR_CODE_DOCS: Record<ErrorCode, string> = {
  VALIDATION: "A field of the body, query or path breaks a rule; `message` is the rule's text and `fields` names the field.",
  BAD_REQUEST: "The request cannot be read (the body is not JSON, not UTF-8, too deep) or asks for something impossible.",
  UNAUTHORIZED: "Not signed in, or the API key is malformed, unknown, revoked or sent in the address instead of the header.",
  FORBIDDEN: "Signed in, but not allowed: the key's scope does not cover the route, a cross-site request, or a rule of the feature.",
  QUOTA_EXCEEDED:
    "The account already holds as many of these as this instance allows (links, API keys, topics, titles in a topic, or text in a topic: README \"Quotas\"); `message` names the cap. Delete some, or ask the operator.",
  NOT_FOUND: "No such object for this user (someone else's objects are not found either), or no such route.",
  METHOD_NOT_ALLOWED: "The path exists but not with this method (e.g. `PATCH` where only `PUT` is served); the `Allow` header lists the methods it has.",
  CONFLICT: "The request clashes with what exists: a short code, username or email already taken.",
  GONE: "The object existed but can no longer be used (an invite already used or expired).",
  PAYLOAD_TOO_LARGE: "The body is larger than 1 MB (a CSV file sent to the import: 10 MB or 100,000 rows).",
  UNSUPPORTED_MEDIA_TYPE: "The body is not sent with the operation's media type: `Content-Type: application/json` (the import: `text/csv`, or `application/json` for this API's JSON export).",
  RATE_LIMITED: "Too many requests: wait for the seconds in `Retry-After` before trying again.",
  EXPORT_IN_PROGRESS: "An export of your links is still streaming: one runs at a time per user; retry when it ends (`Retry-After`).",
  INTERNAL: "An unexpected failure on the server; it is logged and nothing about it is echoed.",
  UNAVAILABLE: "The database is busy or its disk is full or read-only; retry later (`Retry-After` when known).",
};

const STATUS_TEXT: Record<number, string> = {
  400: "Bad request",
  401: "Not signed in or bad API key",
  403: "Forbidden",
  404: "Not found",
  405: "Method not allowed",
  409: "Conflict",
  410: "Gone",
  413: "Body too large",
  415: "Wrong Content-Type",
  429: "Too many requests",
  500: "Server error",
  503: "Unavailable",
};

const CONVERT: ConversionConfig = {
  target: "draft-2020-12",
  // Pipes keep their string-to-string steps (trim, lower-case): the document states the
  // constraints a client can meet. Checks the converter cannot express (a URL's scheme, a
  // reserved word) are skipped here and answered with a VALIDATION error naming the field.
  typeMode: "ignore",
  errorMode: "ignore",
};

/** "/api/links/:id" → "/api/links/{id}"; a trailing slash from a route prefix is dropped. */
export const openApiPath = (path: string) => (path.length > 1 ? path.replace(/\/$/, "") : path).replace(/:(\w+)/g, "{$1}");

/** The codes every operation of this kind can answer with, beside its own. */
function commonErrors(op: Operation): ErrorCode[] {
  const codes: ErrorCode[] = ["INTERNAL", "UNAVAILABLE"];
  if (rateLimited(op)) codes.push("RATE_LIMITED");
  if (op.auth !== "none") codes.push("UNAUTHORIZED", "FORBIDDEN");
  // The Origin check refuses a cross-site browser request with a cookie (src/http/security.ts).
  if (op.method !== "GET") codes.push("FORBIDDEN");
  if (op.body || op.bodyMedia) codes.push("VALIDATION", "BAD_REQUEST", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE");
  if (op.query) codes.push("VALIDATION");
  if (op.path.includes(":")) codes.push("NOT_FOUND");
  return codes;
}

/** Whether the API's request limits count this operation (src/http/rateLimit.ts). */
const rateLimited = (op: Operation) => op.path.startsWith("/api/") && !UNLIMITED.test(op.path.replace(/:\w+/g, "1"));

/** What an API key needs for this operation: read from the declaration the server enforces. */
function keyRights(op: Operation) {
  const reach = reachOf(op);
  if (!reach) return null;
  return { scope: scopeFor(op.method), areas: reach.area ? [reach.area] : [] };
}

/**
 * Path parameters by name (issue 23): ids are integers here as in every body; a route still
 * answers a non-number with its own 404 (or 400) in the error shape, never the framework's.
 */
const PATH_PARAMS: Record<string, Json> = {
  id: { type: "integer", minimum: 1, maximum: 2147483647 },
  deliveryId: { type: "integer", minimum: 1, maximum: 2147483647 },
  linkId: { type: "integer", minimum: 1, maximum: 2147483647 },
  code: { type: "string", minLength: 1, maxLength: 200 },
  username: { type: "string", minLength: 1, maxLength: 100 },
  topicSlug: { type: "string", minLength: 1, maxLength: 200 },
};

/**
 * The typing pass over a converted schema: each property the feature's schema does not describe
 * gets the glossary's words (./fields.ts); in what the server sends, numbers are integers (every
 * number the API answers with is a count, an id or a size) and timestamps, dates and URLs carry
 * their formats. Request bodies keep their schema's own types: what the server accepts.
 */
function typed(node: unknown, response: boolean, name?: string): unknown {
  if (Array.isArray(node)) return node.map((n) => typed(n, response, name));
  if (!node || typeof node !== "object") return node;
  const s = { ...(node as Json) };
  if (s.$ref) return s;
  if (response && name !== undefined) {
    if (s.type === "number" && !FRACTION_FIELDS.has(name)) s.type = "integer";
    if (s.type === "string" && !s.format && !s.enum && !s.const) {
      if (DATE_TIME_FIELDS.has(name)) s.format = "date-time";
      else if (URI_FIELDS.has(name)) s.format = "uri";
      else if (IRI_FIELDS.has(name)) s.format = "iri";
      else if (DATE_FIELDS.has(name)) s.format = "date";
    }
  } else if (response && s.type === "number") s.type = "integer";
  // An optional form field read as "" when absent, whose own rule refuses "": no default to state.
  if (!response && s.default === "" && typeof s.minLength === "number" && s.minLength > 0) delete s.default;
  for (const key of ["anyOf", "oneOf", "allOf"]) if (s[key]) s[key] = typed(s[key], response, name);
  if (s.items) s.items = typed(s.items, response, response ? undefined : name);
  if (s.additionalProperties && typeof s.additionalProperties === "object") s.additionalProperties = typed(s.additionalProperties, response);
  if (s.properties) {
    const props: Record<string, Json> = {};
    for (const [field, prop] of Object.entries(s.properties as Record<string, Json>)) {
      const out = typed(prop, response, field) as Json;
      if (!out.$ref && !out.description && FIELD_DOCS[field]) out.description = FIELD_DOCS[field];
      props[field] = out;
    }
    s.properties = props;
  }
  return s;
}

/**
 * A query parameter as a client sends it: a query string holds text, so the schemas check digits
 * and "true"/"false" as text; the document says integer and boolean (src/shared/query.ts).
 */
function queryParam(schema: Json): Json {
  const s = { ...schema };
  if (s.type === "string" && typeof s.pattern === "string" && /^\^\\d\{[\d,]+\}\$$/.test(s.pattern)) {
    s.type = "integer";
    delete s.pattern;
    s.minimum ??= 0;
  }
  if (s.type === "integer" || s.type === "boolean") delete s.pattern;
  // Free text that Elysia may hand over split at commas (src/shared/paging.ts QueryText): a string to a client.
  const any = s.anyOf as Json[] | undefined;
  if (any?.length === 2 && any[0]?.type === "string" && any[1]?.type === "array") {
    delete s.anyOf;
    s.type = "string";
  }
  const e = s.enum as unknown[] | undefined;
  // A choice of numbers ("7", "30", "90" as the query string holds them): integers to a client.
  if (s.type === "string" && e?.length && e.every((x) => typeof x === "string" && /^\d{1,9}$/.test(x))) {
    s.type = "integer";
    s.enum = e.map(Number);
  }
  if (e?.length === 2 && e.includes("true") && e.includes("false")) {
    s.type = "boolean";
    delete s.enum;
  }
  return s;
}

export type Definitions = Record<string, Schema>;

/** `requests`: the names among `definitions` that are request bodies (typed as the server accepts them). */
export type DocumentInfo = { title: string; version: string; serverUrl: string; definitions: Definitions; requests?: string[] };

/** The OpenAPI 3.1 document for these operations. */
export function buildDocument(operations: Operation[], info: DocumentInfo) {
  const definitions = info.definitions;
  // Named schemas become components; the converter writes their references as #/$defs/….
  const schema = (s: Schema) => {
    const { $schema: _, $defs: __, ...rest } = toJsonSchema(s, { ...CONVERT, definitions }) as Json;
    return relink(rest);
  };
  const converted = toJsonSchemaDefs(definitions, CONVERT) as Record<string, Json>;
  // Named request bodies (info.requests) are typed as requests, the rest as answers.
  const components = relink(
    Object.fromEntries(
      Object.entries(converted).map(([name, c]) => {
        const request = info.requests?.includes(name) ?? false;
        return [name, request ? defaultsInWords(typed(requiredWhereDefaultFails(definitions[name as keyof typeof definitions]!, c), false)) : typed(c, true)];
      }),
    ),
  );

  // The one error shape, written into each shared error response with its status's codes.
  const errorBody = typed(schema(ErrorBody), true) as Json;
  const paths: Record<string, Record<string, Json>> = {};
  const sharedResponses: Record<string, Json> = {};
  const tags = new Set<string>();
  for (const op of operations) {
    const path = openApiPath(op.path);
    const method = op.method.toLowerCase();
    paths[path] ??= {};
    if (paths[path][method]) throw new Error(`OpenAPI: ${op.method} ${path} is declared twice`);
    if (op.tag) tags.add(op.tag);
    paths[path][method] = operation(op, schema, sharedResponses, errorBody);
  }

  return {
    openapi: "3.1.0",
    info: { title: `${info.title} API`, version: info.version, description: DESCRIPTION },
    servers: [{ url: info.serverUrl }],
    tags: [...tags].map((name) => {
      const description = TAG_DOCS[name];
      if (!description) throw new Error(`OpenAPI: tag ${name} has no description in TAG_DOCS`);
      return { name, description };
    }),
    paths,
    components: {
      schemas: components,
      responses: sharedResponses,
      securitySchemes: {
        session: {
          type: "apiKey",
          in: "cookie",
          name: "tl_session",
          description:
            "The web app's session, set by POST /api/login. A state-changing request with a cookie must come from the app's own origin (an Origin header from elsewhere gets 403).",
        },
        apiKey: {
          type: "http",
          scheme: "bearer",
          description: `An API key made in Settings (or \`threadlink api-key create USER NAME --scope read|read-write [--only links|topics]\`), sent as \`Authorization: Bearer ${KEY_PREFIX}…\`. It has the rights of its user narrowed by its scope: \`read\` keys only GET; a key limited to links or topics reaches only those routes; no key reaches account routes (user, logout, API keys, subscription). A key in the query string is refused.`,
        },
      },
      headers: RATE_LIMIT_HEADER_DOCS,
    },
  };
}

/** What each group of operations is for, in the reference's words. */
const TAG_DOCS: Record<string, string> = {
  Instance: "Whether the instance is up, and its public settings.",
  Account: "Signing up, signing in and out, who you are, and your plan. Session only: API keys never reach these.",
  Links: "The Link Tracker: short links on the short domain, their analytics and click exports, in bulk or one at a time.",
  "Brand links": "The brand tracker: short links on the brand domain, with editable codes and the instance's root link.",
  Redirects: "Following a short link, as a visitor's browser does.",
  Topics: "Your topics, topics shared with you, and the share page's listing.",
  Titles: "The titles in a topic, with their versions.",
  Sharing: "Invites, and who sees whose shared topics.",
  Webhooks: "Endpoints that receive the account's events, signed, with their delivery log. Session only.",
  Tags: "Your tags, shared by both trackers' links: naming, colours, and a tag's links' clicks added up. Keys limited to links reach them.",
  "Public stats pages": "Publishing a link's aggregate stats at an unguessable public address, a new address, or none. Keys limited to links reach them.",
  "UTM templates": "Your saved sets of UTM parameters, applied to a destination in the create and edit dialogs. Keys limited to links reach them.",
  "QR styles": "Your saved QR code looks (colours, shapes, a frame), picked when drawing a code.",
  "Live updates": "Your account's events as they happen, as Server-Sent Events. Session only: API keys never reach the stream.",
  Notifications: "What happened to your links and topics.",
  "API keys": "Keys for scripts, each narrowed by scope and area. Session only: a key cannot mint keys.",
  Reference: "This document and its reference page.",
};

// The request limits' fields, stated once and referred to by every response they come with.
const RATE_LIMIT_HEADER_DOCS: Record<string, Json> = {
  ...Object.fromEntries(
    Object.entries(RATE_LIMIT_HEADERS).map(([name, description]) => [name, { description, schema: { type: name === "RateLimit-Policy" ? "string" : "integer" } }]),
  ),
  [RETRY_AFTER_HEADER]: { description: "Seconds to wait before trying again.", required: true, schema: { type: "integer", minimum: 1 } },
};
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
const RATE_LIMIT_REFS = Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, headerRef(name)]));

const DESCRIPTION = [
  "Every /api route of Threadlink. Sign in with the web app's session cookie, or send an API key as `Authorization: Bearer tl_…` (make one in Settings).",
  "",
  "Every failure has one shape, `{ \"error\": { \"code\": \"…\", \"message\": \"…\", \"fields\": { \"field\": \"message\" } } }`; `fields` is present when one field is at fault. The codes are stable:",
  "",
  "| code | status | when |",
  "| --- | --- | --- |",
  ...Object.entries(ERROR_CODE_DOCS).map(([code, when]) => `| \`${code}\` | ${statusOf[code as ErrorCode]} | ${when} |`),
  "",
  `Rate limits: ${RATE_LIMIT_DESCRIPTION}`,
].join("\n");

/**
 * The forms' schemas take a missing text field as "" so that its own rule answers with the
 * spec's message ("Title is required"); to a client such a field is simply required. Read from
 * the valibot schema (a field whose default is "" and whose pipe refuses the empty string),
 * since the JSON Schema no longer tells `optional(pipe(optional(string, ""), nonEmpty))` (an
 * optional field) from `pipe(optional(string, ""), nonEmpty)` (a required one).
 */
type Entry = { default?: unknown };
function requiredWhereDefaultFails(valibot: Schema, body: Json): Json {
  const entries = (valibot as { entries?: Record<string, Entry> }).entries ?? {};
  const props = body.properties as Record<string, Json> | undefined;
  // Not an object (the import's export-or-list): nothing to require.
  if (!props) return body;
  const required = new Set((body.required as string[] | undefined) ?? []);
  const properties: Record<string, Json> = { ...props };
  for (const [name, entry] of Object.entries(entries)) {
    // Absent, the field is "" and its own rules run on it (nonEmpty, minLength, a picklist, a
    // pattern like a colour's): required when they refuse it.
    if (entry.default !== "" || v.safeParse(entry as unknown as Schema, undefined).success) continue;
    const { default: _, ...rest } = properties[name] ?? {};
    properties[name] = rest;
    required.add(name);
  }
  return { ...body, properties, required: [...required] };
}

/**
 * A named request body without `default` keywords: openapi-typescript (defaultNonNullable, on by
 * default) types a component's property that has a default as always present, so a generated
 * client would have to send every optional field (a create with shortCode, externalId, …). Its
 * inline request bodies and parameters are spared, components are not. A default worth knowing
 * (a colour, a weight) is kept in the field's words; "", null, false and [] mean "none", which
 * the field's description already says.
 */
function defaultsInWords(node: unknown): Json {
  if (Array.isArray(node)) return node.map(defaultsInWords) as unknown as Json;
  if (!node || typeof node !== "object") return node as Json;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) if (k !== "default") out[k] = k === "example" || k === "examples" ? v : defaultsInWords(v);
  const d = (node as Json).default;
  const meaningful = d !== undefined && d !== "" && d !== null && d !== false && !(Array.isArray(d) && d.length === 0);
  if (meaningful) out.description = `${out.description ? `${String(out.description).replace(/\.?$/, ".")} ` : ""}Default: \`${typeof d === "string" ? d : JSON.stringify(d)}\`.`;
  return out;
}

function relink(node: unknown): Json {
  return JSON.parse(JSON.stringify(node).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
}

function isSchema(r: Schema | ResponseSpec): r is Schema {
  return "kind" in r && (r as { kind: unknown }).kind === "schema";
}

function operation(op: Operation, schema: (s: Schema) => Json, sharedResponses: Record<string, Json>, errorBody: Json): Json {
  const out: Json = { operationId: operationId(op), summary: op.summary, tags: op.tag ? [op.tag] : [] };
  let description = op.description ?? "";
  if (op.auth === "none") out.security = [];
  else {
    const rights = op.auth === "user" ? keyRights(op) : null;
    // The scope a key needs is `x-api-key` and the description: OpenAPI lists scopes in a
    // requirement only for OAuth2 and OpenID Connect schemes (spectral's rule).
    out.security = rights ? [{ session: [] }, { apiKey: [] }] : [{ session: [] }];
    const keyNote = rights
      ? `API key: scope \`${rights.scope}\` or wider${rights.areas.length ? `, unlimited or limited to ${rights.areas.join(" or ")}` : ", not limited to an area"}.`
      : "Session only: API keys are refused (403).";
    description = description ? `${description}\n\n${keyNote}` : keyNote;
    if (rights) out["x-api-key"] = rights;
  }
  if (description) out.description = description;

  const parameters: Json[] = [];
  for (const name of op.path.match(/:(\w+)/g)?.map((p) => p.slice(1)) ?? []) {
    const about = op.params?.[name];
    if (!about) throw new Error(`OpenAPI: ${op.method} ${op.path} does not describe its parameter ${name}`);
    const type = PATH_PARAMS[name];
    if (!type) throw new Error(`OpenAPI: ${op.method} ${op.path}: path parameter ${name} has no type in PATH_PARAMS`);
    parameters.push({ name, in: "path", required: true, description: about, schema: type });
  }
  if (op.query) {
    const q = schema(op.query) as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, s] of Object.entries(q.properties ?? {})) {
      const { description: own, ...rest } = queryParam(s);
      const about = own ?? FIELD_DOCS[name];
      parameters.push({ name, in: "query", required: q.required?.includes(name) ?? false, ...(about ? { description: about } : {}), schema: rest });
    }
  }
  if (parameters.length) out.parameters = parameters;

  if (op.body) {
    const body = schema(op.body);
    // A named body is a $ref: the component carries its required fields (buildDocument).
    const content: Json = { schema: typed(body.$ref ? body : requiredWhereDefaultFails(op.body, body), false) };
    if (op.example !== undefined) content.example = op.example;
    out.requestBody = { required: true, content: { "application/json": content } };
  }
  // A file sent as the body itself (the link import's CSV): its media type and a text schema.
  if (op.bodyMedia) {
    const content: Json = { schema: { type: "string" } };
    if (op.example !== undefined) content.example = op.example;
    out.requestBody = { required: true, content: { [op.bodyMedia]: content } };
    if (op.bodyJson) (out.requestBody as { content: Json }).content["application/json"] = { schema: schema(op.bodyJson), ...(op.exampleJson !== undefined ? { example: op.exampleJson } : {}) };
  }

  const responses: Record<string, Json> = {};
  // A limited operation's answers carry the RateLimit fields when its caller is counted (a key,
  // or an anonymous address; not the web app's own session), so they are documented, not required.
  const limited = rateLimited(op);
  for (const [status, r] of Object.entries(op.responses)) {
    if (!r) continue;
    const response = success(Number(status), r, schema);
    if (limited) response.headers = { ...RATE_LIMIT_REFS, ...(response.headers as Json | undefined) };
    responses[status] = response;
  }
  const byStatus = new Map<number, Set<ErrorCode>>();
  for (const code of [...commonErrors(op), ...(op.errors ?? [])]) {
    const status = statusOf[code];
    if (!byStatus.has(status)) byStatus.set(status, new Set());
    byStatus.get(status)!.add(code);
  }
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    // A status the operation answers with a body of its own (health's 503) keeps that body.
    if (responses[String(status)]) continue;
    const list = [...codes];
    // ErrorBody with `code` narrowed to this status's codes, written out whole: an allOf that
    // narrows a nested property reads to linters as an unevaluated `message` (redocly).
    const body = structuredClone(errorBody) as { properties: { error: { properties: Record<string, Json> } } };
    body.properties.error.properties.code = { ...body.properties.error.properties.code, enum: list };
    // Shared: one component per status, set of codes and whether the limits apply.
    const name = `${list.join("-")}${limited ? "-limited" : ""}`;
    if (!sharedResponses[name]) {
      const response: Json = {
        description: `${STATUS_TEXT[status] ?? "Error"}: ${list.map((c) => `\`${c}\``).join(", ")}`,
        content: { "application/json": { schema: body, example: { error: { code: list[0], message: ERROR_CODE_DOCS[list[0]!] } } } },
      };
      const headers: Json = limited ? { ...RATE_LIMIT_REFS } : {};
      if (status === 429) headers[RETRY_AFTER_HEADER] = headerRef(RETRY_AFTER_HEADER);
      if (Object.keys(headers).length) response.headers = headers;
      sharedResponses[name] = response;
    }
    responses[String(status)] = { $ref: `#/components/responses/${name}` };
  }
  out.responses = responses;
  return out;
}

function success(status: number, r: Schema | ResponseSpec, schema: (s: Schema) => Json): Json {
  const spec: ResponseSpec = isSchema(r) ? { schema: r } : r;
  const out: Json = { description: spec.description ?? (status === 201 ? "Created" : status === 204 ? "No content" : "OK") };
  const content: Json = {};
  if (spec.schema) content["application/json"] = { schema: typed(schema(spec.schema), true) };
  if (spec.media) content[spec.media.type] = { schema: { type: "string" }, ...(spec.media.example ? { example: spec.media.example } : {}) };
  if (Object.keys(content).length) out.content = content;
  if (spec.headers || spec.optionalHeaders) {
    const doc = (required: boolean) => ([name, description]: [string, string]) => [name, { description, required, schema: { type: "string" } }];
    out.headers = Object.fromEntries([...Object.entries(spec.headers ?? {}).map(doc(true)), ...Object.entries(spec.optionalHeaders ?? {}).map(doc(false))]);
  }
  return out;
}

/** "GET /api/links/:id/analytics" → "getLinksIdAnalytics": unique, stable, readable. */
function operationId(op: Operation) {
  const words = op.path
    .replace(/^\/api\//, "")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1));
  return op.method.toLowerCase() + words.join("");
}
