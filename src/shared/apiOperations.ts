// The API's operations, declared by each feature next to its routes (issue 14). A leaf on the
// ground floor, so a feature's routes.ts never imports up into src/openapi/, which imports every
// feature's operations. The OpenAPI document (src/openapi/document.ts) is built from these declarations and the features' own valibot
// schemas, so what the routes validate and what the document says are one contract; the
// contract test (src/openapi/contract.test.ts) fails when a route of the app has no operation here.
//
// How to document a route, in the feature's routes.ts:
//
//   export const linkOperations = defineOperations({ tag: "Links", auth: "user", keyArea: "links" }, [
//     { method: "POST", path: "/api/links", summary: "Create a link", body: CreateLinkBody,
//       responses: { 201: LinkView }, errors: ["CONFLICT"], example: { originalUrl: "https://…", title: "…" } },
//   ]);
//
// then add `...linkOperations` to the list in src/openapi/operations.ts. Paths are written as the
// router has them (`:id`); the document turns them into `{id}`.
import * as v from "valibot";
import type { ErrorCode } from "./errors";

/** An API key's area (src/apikeys/schema.ts AREAS), written out so this file stays a leaf. */
export type KeyArea = "links" | "topics";

// Any valibot schema, whatever its input and output types.
export type Schema = v.GenericSchema<any, any>;

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** A response that is not JSON, or JSON with a description of its own. */
export type ResponseSpec = {
  description?: string;
  /** The JSON body's schema; none for an empty body (204, 302). */
  schema?: Schema;
  /** A body that is not JSON: its media type and a plain description of it (e.g. a CSV). */
  media?: { type: string; example?: string };
  /** Response headers worth knowing (Location on a redirect, Content-Disposition on a download). */
  headers?: Record<string, string>;
  /** Headers sent only sometimes (a list's next-page cursor, absent on its last page). */
  optionalHeaders?: Record<string, string>;
};

export type Operation = {
  method: Method;
  /** As the router has it: "/api/links/:id". */
  path: string;
  summary: string;
  description?: string;
  /** Defaults to the group's tag. */
  tag?: string;
  /**
   * "user": a signed-in session or an API key (narrowed by its scope, see src/apikeys/access.ts);
   * "session": a signed-in session only (account routes, which keys never reach);
   * "none": anyone.
   * This declaration is the one source of a key's rights: the auth macro enforces it for the
   * matched route (src/apikeys/access.ts keyReachTable) and the document states it.
   */
  auth?: "user" | "session" | "none";
  /**
   * For auth "user": the area ("links" or "topics") whose keys limited to it reach this
   * operation. Absent: only keys not limited to an area do. A read key reaches GET only.
   */
  keyArea?: KeyArea;
  /** Path parameters: name → description. Every `:name` in the path must be described. */
  params?: Record<string, string>;
  /** A v.object of optional string fields. */
  query?: Schema;
  /** The JSON body the route's schema accepts (documented as its input type). */
  body?: Schema;
  /** Instead of `body`: a file sent as the body itself, by its media type ("text/csv"); `example` is its text. */
  bodyMedia?: string;
  /**
   * Beside `bodyMedia`: the JSON the same operation takes too (`Content-Type: application/json`),
   * read by its handler, documented as this named body (the import's JSON export).
   */
  bodyJson?: Schema;
  /** `bodyJson`'s example, for the reference page to start from when JSON is the chosen media type. */
  exampleJson?: unknown;
  /** A request body for the reference page to start from. */
  example?: unknown;
  /** Success responses by status: a schema, or a spec for non-JSON or empty bodies. */
  responses: Partial<Record<number, Schema | ResponseSpec>>;
  /**
   * Error codes this operation answers with beyond those every operation can meet (see
   * COMMON_ERRORS in ./document.ts: the body, sign-in, key scope and server codes).
   */
  errors?: ErrorCode[];
};

type Group = Pick<Operation, "tag" | "auth" | "keyArea">;

/** A feature's operations, with the tag and auth they share unless one says otherwise. */
export function defineOperations(group: Group, operations: Operation[]): Operation[] {
  return operations.map((op) => ({ ...group, ...op }));
}

/** The body of a request that only succeeds: `{ "ok": true }`. */
export const Ok = v.object({ ok: v.literal(true) });
