// GET /api/openapi.json (the document, built once, on the first request) and GET /api/docs (the reference
// page: a lazily loaded screen of the web app, see docs/decisions.md).
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { VERSION } from "../version";
import { accepts } from "../http/spa";
import { buildDocument } from "./document";
import { NAMED_SCHEMAS, OPERATIONS, REQUEST_NAMES } from "./operations";

type WebPage = (request: Request) => Response | Promise<Response>;

export function openApiRoutes(ctx: AppContext, webPage: WebPage) {
  // Built on the first request, not at start: converting every schema took ~210 ms of a
  // million-link start-up (issue 21: start-up ≤ 2 s), and most starts serve no document.
  let built: { body: string; gzipped: Uint8Array<ArrayBuffer> } | null = null;
  const build = () => {
    if (built) return built;
    const document = buildDocument(OPERATIONS, {
      title: ctx.config.appName,
      version: VERSION,
      serverUrl: ctx.config.publicUrl,
      definitions: NAMED_SCHEMAS,
      requests: REQUEST_NAMES,
    });
    const body = JSON.stringify(document);
    // Compressed once: the document is about 90 KB of repetitive JSON (about 10 KB gzipped).
    built = { body, gzipped: Bun.gzipSync(body, { level: 9 }) };
    return built;
  };
  const headers = { "content-type": "application/json; charset=utf-8", "cache-control": "no-cache", vary: "accept-encoding" };
  return new Elysia({ name: "openapi", seed: ctx.instanceId })
    .get("/api/openapi.json", ({ request }) => {
      const { body, gzipped } = build();
      return accepts(request.headers.get("accept-encoding"), "gzip")
        ? new Response(gzipped, { headers: { ...headers, "content-encoding": "gzip" } })
        : new Response(body, { headers });
    })
    .get("/api/docs", ({ request }) => webPage(request));
}
