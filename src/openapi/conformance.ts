// Does an answer fit the OpenAPI document? One checker for the contract test (in-process app)
// and the generated-client run against the compiled binary (scripts/api-client/run.ts): its
// status is documented, its JSON body validates against the documented schema (ajv, JSON
// Schema 2020-12, the document's own components), another body has a documented media type,
// and every header the document marks required is sent. Answers a list of problems, empty
// when it fits, so each caller reports them its own way.
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";

type DocResponse = { content?: Record<string, unknown>; headers?: Record<string, Header> };
type Header = { $ref: string } | { required?: boolean };
export type OpenApiDoc = {
  paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, DocResponse | { $ref: string }> }>>;
  components: { headers: Record<string, { required?: boolean }>; responses: Record<string, DocResponse> };
};
/** What the checker reads of an answer. */
export type Answer = { status: number; headers: Headers; json: unknown; text: string };

const DOC_ID = "urn:threadlink:openapi";
/** A JSON pointer to a place in the document. */
const pointer = (...parts: string[]) => parts.map((p) => encodeURIComponent(p.replaceAll("~", "~0").replaceAll("/", "~1"))).join("/");

export function documentChecker(doc: OpenApiDoc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // ajv-formats has no `iri`: an address kept as entered is one a URL parser reads whole, with
  // no space or control character (what the server checks before it keeps one).
  ajv.addFormat("iri", (s: string) => URL.canParse(s) && !/[\s\x00-\x1f\x7f]/.test(s));
  ajv.addSchema(doc, DOC_ID);
  const refHeader = (ref: string) => doc.components.headers[ref.split("/").pop()!]!;
  /** A validator for the schema at this place in the document (compiled once). */
  const validatorAt = (...where: string[]) => {
    const ref = `${DOC_ID}#/${pointer(...where)}`;
    return ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  };

  /** `path` is the documented path ("/api/links/{id}"). */
  function problems(method: string, path: string, res: Answer): string[] {
    const at = `${method.toUpperCase()} ${path} ${res.status}`;
    const op = doc.paths[path]?.[method.toLowerCase()];
    if (!op) return [`${method.toUpperCase()} ${path} is not documented`];
    const listed = op.responses[String(res.status)];
    if (!listed) return [`${at} is not a documented status (${res.text.slice(0, 200)})`];
    // Error answers are shared components (#/components/responses/…).
    const shared = "$ref" in listed ? listed.$ref.split("/").pop()! : null;
    const where = shared ? ["components", "responses", shared] : ["paths", path, method.toLowerCase(), "responses", String(res.status)];
    const response = shared ? doc.components.responses[shared]! : (listed as DocResponse);
    const type = res.headers.get("content-type") ?? "";
    const out: string[] = [];
    const json = (type.startsWith("application/json") || !response.content) && response.content?.["application/json"];
    if (json) {
      const validate = validatorAt(...where, "content", "application/json", "schema");
      if (!validate(res.json)) out.push(`${at} does not fit its schema: ${JSON.stringify(validate.errors?.slice(0, 5))} in ${JSON.stringify(res.json).slice(0, 300)}`);
    } else if (response.content) {
      const types = Object.keys(response.content);
      if (!types.some((t) => type.startsWith(t))) out.push(`${at} answered ${type}, documented ${types.join(", ")}`);
    } else if (res.text !== "") {
      out.push(`${at} has a body, documented none`);
    }
    // Headers the document marks required are sent; the others (the RateLimit fields) when they apply.
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const required = "$ref" in header ? refHeader(header.$ref).required : header.required;
      if (required && res.headers.get(name) === null) out.push(`${at} does not send ${name}`);
    }
    return out;
  }

  /** Problems of a request body against the operation's documented JSON body (none: it fits). */
  function requestProblems(method: string, path: string, body: unknown): string[] {
    const validate = validatorAt("paths", path, method.toLowerCase(), "requestBody", "content", "application/json", "schema");
    return validate(body) ? [] : [`${method.toUpperCase()} ${path}'s body does not fit its schema: ${JSON.stringify(validate.errors?.slice(0, 5))}`];
  }

  return { problems, requestProblems };
}
