// Every documented operation of the API, feature by feature. A feature declares its
// operations in its routes.ts (see ./registry.ts) and is listed here once.
import { ApiKeyView, CreatedApiKey } from "../apikeys/schema";
import { apiKeyOperations } from "../apikeys/routes";
import type { Definitions } from "./document";
import { defineOperations, type Operation } from "./registry";

// The reference itself (src/openapi/routes.ts).
const openApiOperations = defineOperations({ tag: "Reference", auth: "none" }, [
  {
    method: "GET",
    path: "/api/openapi.json",
    summary: "This document",
    description: "The OpenAPI 3.1 description of every /api route, built from the routes' own schemas.",
    responses: { 200: { description: "The OpenAPI document", media: { type: "application/json" } } },
  },
  {
    method: "GET",
    path: "/api/docs",
    summary: "The API reference page",
    description: "This document rendered as a page, with a console to try each operation.",
    responses: { 200: { description: "The web app's page", media: { type: "text/html" } } },
  },
]);

export const OPERATIONS: Operation[] = [...apiKeyOperations, ...openApiOperations];

/** Response shapes named in the document (components), so clients see one LinkView, not copies. */
export const NAMED_SCHEMAS: Definitions = { ApiKeyView, CreatedApiKey };
