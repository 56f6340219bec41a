import * as v from "valibot";

/**
 * Validates a form with the route's own schema. On failure returns the first message per
 * field, keyed by field name, ready to show beside the inputs.
 */
export function validateForm<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
): { ok: true; output: v.InferOutput<S> } | { ok: false; errors: Record<string, string> } {
  const parsed = v.safeParse(schema, value);
  if (parsed.success) return { ok: true, output: parsed.output };
  const errors: Record<string, string> = {};
  for (const issue of parsed.issues) {
    const key = issue.path?.[0]?.key;
    if (typeof key === "string" && !errors[key]) errors[key] = issue.message;
  }
  return { ok: false, errors };
}
