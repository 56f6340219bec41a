// Query-string parameters typed for the document (issue 23): a query string is text, so each
// schema checks the text and keeps it (the handler reads the number), and `metadata` gives the
// OpenAPI document the type a client sends it as (integer, boolean). The checks are v.check, not
// v.regex, so the document carries no string pattern on an integer. (A true/false picklist is
// documented as a boolean by src/openapi/document.ts.)
import * as v from "valibot";

const WHOLE = /^\d{1,16}$/;

/** A whole number from `min` to `max` (`fallback` when absent), refused with `name`'s message otherwise. */
export const QueryInt = (name: string, min: number, max: number, fallback: number | undefined, description: string) => {
  const message = `${name} must be a whole number from ${min.toLocaleString("en")} to ${max.toLocaleString("en")}`;
  return v.optional(
    v.pipe(
      v.string(message),
      v.check((s) => WHOLE.test(s) && Number(s) >= min && Number(s) <= max, message),
      v.metadata({ type: "integer", minimum: min, maximum: max, ...(fallback === undefined ? {} : { default: fallback }) }),
      v.description(description),
    ),
  );
};

/** One of a few whole numbers (days of a timeline: 7, 30 or 90). */
export const QueryIntOf = (name: string, values: readonly number[], fallback: number, description: string) => {
  const message = `${name} must be one of ${values.join(", ")}`;
  return v.optional(
    v.pipe(
      v.string(message),
      v.check((s) => values.map(String).includes(s), message),
      v.metadata({ type: "integer", enum: [...values], default: fallback }),
      v.description(description),
    ),
  );
};
