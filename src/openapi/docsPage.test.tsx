// /api/docs shows every media type of a body: the import takes a CSV file or the JSON export, and
// the page used to show (and send) only the first. Rendered from the served document itself.
import { expect, test } from "bun:test";
import { renderToStaticMarkup } from "react-dom/server";
import { buildDocument } from "./document";
import { NAMED_SCHEMAS, OPERATIONS, REQUEST_NAMES } from "./operations";
import { OperationView, ResponseView } from "../../web/apidocs/ApiDocsPage";
import { mediaTypes, type OpenApiDocument } from "../../web/apidocs/schemaOutline";

const doc = buildDocument(OPERATIONS, { title: "Threadlink", version: "test", serverUrl: "https://go.example", definitions: NAMED_SCHEMAS, requests: REQUEST_NAMES }) as unknown as OpenApiDocument;
type Op = Parameters<typeof OperationView>[0]["op"];
const importOp = (doc.paths["/api/links/import"] as Record<string, Op>).post!;
const auth = { mode: "session" as const, key: "" };
const text = (html: string) => html.replace(/<[^>]+>/g, "\n").replaceAll("&quot;", '"').replaceAll("&#x27;", "'").replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");

test("the import's request body is shown in both of its media types, CSV's example and the JSON body's outline", () => {
  const html = renderToStaticMarkup(<OperationView method="POST" path="/api/links/import" op={importOp} doc={doc} auth={auth} server="https://go.example" />);
  const shown = text(html);
  expect(shown).toContain("Request body (text/csv)");
  expect(shown).toContain("Request body (application/json)");
  // CSV: the example file; JSON: ImportLinksBody written out (the export's object or the list alone).
  expect(shown).toContain("url,code,title");
  expect(shown).toContain("exportedAt?: string");
  expect(shown).toContain("  }[]  // The links, at most 100,000");
  // The console offers both, CSV first (the operation's first media type), with CSV's example as the body.
  expect(html).toMatch(/<label[^>]*>Send the body as<\/label><select[^>]*><option value="0"[^>]*>text\/csv<\/option><option value="1"[^>]*>application\/json<\/option>/);
  expect(shown).toContain("Content-Type: text/csv");
});

test("an operation with one media type shows it alone, with no choice of media type", () => {
  const create = (doc.paths["/api/links"] as Record<string, Op>).post!;
  const shown = text(renderToStaticMarkup(<OperationView method="POST" path="/api/links" op={create} doc={doc} auth={auth} server="https://go.example" />));
  expect(shown.match(/Request body \(/g)).toHaveLength(1);
  expect(shown).toContain("Request body (application/json)");
  expect(shown).not.toContain("Send the body as");
});

test("the JSON media type carries its own example in the document, a body the import accepts", () => {
  const json = importOp.requestBody!.content["application/json"]!;
  expect(json.example).toEqual({ links: [expect.objectContaining({ originalUrl: "https://example.com/spring-sale" }), expect.objectContaining({ originalUrl: "https://example.com/docs" })] });
});

test("a response with several media types lists each, JSON outlined and another by its example", () => {
  const response = {
    description: "The links",
    content: {
      "application/json": { schema: { type: "object", properties: { count: { type: "integer" } }, required: ["count"] } },
      "text/csv": { schema: { type: "string" }, example: "code,url\r\nabc,https://example.com\r\n" },
    },
  };
  const html = renderToStaticMarkup(<ResponseView status="200" response={response} doc={doc} />);
  const shown = text(html);
  expect(shown).toContain("application/json, text/csv");
  expect(shown).toContain("count: integer");
  expect(shown).toContain("code,url");
  expect(html).toContain('aria-label="200 as application/json"');
  expect(html).toContain('aria-label="200 as text/csv"');
  // The served document's one-type responses (the CSV export) keep a single body, named once.
  expect(mediaTypes(response.content, doc).map((m) => m.type)).toEqual(["application/json", "text/csv"]);
});

test("an error response shows no body of its own (the one error shape is tabled in the introduction)", () => {
  const shown = text(renderToStaticMarkup(<ResponseView status="400" response={{ description: "Invalid", content: { "application/json": { schema: { type: "object", properties: { error: { type: "object" } } } } } }} doc={doc} />));
  expect(shown).not.toContain("application/json");
  expect(shown).not.toContain("error:");
});
