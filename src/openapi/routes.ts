// GET /api/openapi.json (the document, built once at start) and GET /api/docs (the reference
// page: a lazily loaded screen of the web app, see docs/decisions.md).
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { VERSION } from "../version";
import { buildDocument } from "./document";
import { NAMED_SCHEMAS, OPERATIONS } from "./operations";

type WebPage = (request: Request) => Response | Promise<Response>;

export function openApiRoutes(ctx: AppContext, webPage: WebPage) {
  const document = buildDocument(OPERATIONS, {
    title: ctx.config.appName,
    version: VERSION,
    serverUrl: ctx.config.publicUrl,
    definitions: NAMED_SCHEMAS,
  });
  const body = JSON.stringify(document);
  return new Elysia({ name: "openapi", seed: ctx.instanceId })
    .get(
      "/api/openapi.json",
      () => new Response(body, { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-cache" } }),
    )
    .get("/api/docs", ({ request }) => webPage(request));
}
