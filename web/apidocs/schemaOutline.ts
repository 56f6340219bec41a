// A JSON Schema (as the OpenAPI document has it) written out as a short, TypeScript-like
// outline for people: `{ title: string (1–100 characters), expiresAt?: string | null }`.

export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
  description?: string;
};

export type OpenApiDocument = {
  info: { title: string; version: string; description?: string };
  servers?: { url: string }[];
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, JsonSchema>; responses?: Record<string, unknown> };
};

const MAX_DEPTH = 6;

/** One media type of a body, as the document's `content` has it. */
export type Media = { schema?: JsonSchema; example?: unknown };

const isJson = (type: string) => type === "application/json" || type.endsWith("+json");

/**
 * Every media type of a body (a request's or a response's) with what the page shows for it: a
 * JSON body's outline, another's example text (a CSV file) or else nothing. All of them, in the
 * document's order: the import takes CSV and JSON, and showing only the first hid the JSON body.
 */
export function mediaTypes(content: Record<string, Media> | undefined, doc: OpenApiDocument): { type: string; json: boolean; shown?: string; example?: unknown }[] {
  return Object.entries(content ?? {}).map(([type, media]) => {
    const json = isJson(type);
    const shown = json ? (media.schema ? outline(media.schema, doc) : undefined) : typeof media.example === "string" ? media.example : undefined;
    return { type, json, shown, example: media.example };
  });
}

/** The outline of `schema`, with references into the document's components resolved. */
export function outline(schema: JsonSchema, doc: OpenApiDocument, indent = 0, depth = 0): string {
  if (depth > MAX_DEPTH) return "…";
  const pad = "  ".repeat(indent);
  if (schema.$ref) {
    const name = schema.$ref.split("/").pop()!;
    const target = doc.components?.schemas?.[name];
    return target ? outline(target, doc, indent, depth + 1) : name;
  }
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map((s) => outline(s, doc, indent, depth + 1)).join(" | ");
  if (schema.allOf) return schema.allOf.map((s) => outline(s, doc, indent, depth + 1)).join(" & ");
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : schema.type;
  if (type === "array") {
    const items = schema.items ?? {};
    const text = outline(items, doc, indent, depth + 1);
    return isUnion(items) ? `(${text})[]` : `${text}[]`;
  }
  if (type === "object" || schema.properties) {
    const entries = Object.entries(schema.properties ?? {});
    if (!entries.length) {
      const extra = schema.additionalProperties;
      return extra && typeof extra === "object" ? `{ [name: string]: ${outline(extra, doc, indent, depth + 1)} }` : "object";
    }
    const inner = "  ".repeat(indent + 1);
    const lines = entries.map(([key, s]) => {
      const optional = schema.required?.includes(key) ? "" : "?";
      const about = s.description ? `  // ${s.description}` : "";
      return `${inner}${key}${optional}: ${outline(s, doc, indent + 1, depth + 1)}${about}`;
    });
    return `{\n${lines.join("\n")}\n${pad}}`;
  }
  return `${type ?? "any"}${constraints(schema)}`;
}

const isUnion = (s: JsonSchema) => (s.anyOf ?? s.oneOf ?? s.enum ?? []).length > 1;

function constraints(s: JsonSchema) {
  const notes: string[] = [];
  if (s.minLength !== undefined && s.maxLength !== undefined) notes.push(`${s.minLength}–${s.maxLength} characters`);
  else if (s.maxLength !== undefined) notes.push(`at most ${s.maxLength} characters`);
  else if (s.minLength) notes.push(s.minLength === 1 ? "not empty" : `at least ${s.minLength} characters`);
  if (s.minimum !== undefined) notes.push(`≥ ${s.minimum}`);
  if (s.maximum !== undefined) notes.push(`≤ ${s.maximum}`);
  if (s.format) notes.push(s.format);
  if (s.pattern) notes.push(`matching ${s.pattern}`);
  return notes.length ? ` (${notes.join(", ")})` : "";
}
