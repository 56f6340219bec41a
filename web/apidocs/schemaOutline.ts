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
