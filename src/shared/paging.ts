// Keyset pages for every list of the API (links of both trackers, a topic's titles, the
// notifications), shared by the server and the web app. A list's body keeps the shape the spec
// gives it (an array of links, a list of titles); the page travels in headers beside it, so a
// client that reads only the body still works and one that pages reads two headers.
import * as v from "valibot";

/** The rows matching the query, every page (the first page's figure, counted again each page). */
export const TOTAL_HEADER = "x-total-count";
/** "true" when the total is a floor: a search or filter matched more than the list counts (the total says how many it counted). */
export const CAPPED_HEADER = "x-total-capped";
/** The cursor of the next page; absent on the last page. */
export const NEXT_HEADER = "x-next-cursor";

export const PAGE_MSG = {
  limit: (max: number) => `limit must be a whole number from 1 to ${max}`,
  cursor: "cursor is not a cursor of this list and sort: start again without it",
  search: "q must be at most 100 characters",
} as const;

/** Longest search text: a few words; longer is refused rather than silently cut. */
export const SEARCH_MAX = 100;
/** Longest cursor accepted: ours are well under it (a sort key, a title of 100 characters and an id). */
const CURSOR_MAX = 600;

/** `limit`: a whole number 1…max (the query string's text), defaulting to `fallback`. */
export const Limit = (fallback: number, max: number) =>
  v.optional(
    v.pipe(
      v.string(PAGE_MSG.limit(max)),
      v.regex(/^\d{1,5}$/, PAGE_MSG.limit(max)),
      v.transform(Number),
      v.minValue(1, PAGE_MSG.limit(max)),
      v.maxValue(max, PAGE_MSG.limit(max)),
      // The document's type: a whole number, as a client sends it (src/openapi/document.ts).
      v.metadata({ type: "integer", minimum: 1, maximum: max, default: fallback }),
      v.description(`Rows per page, 1 to ${max} (default ${fallback}).`),
    ),
  );

export const Cursor = v.optional(
  v.pipe(v.string(PAGE_MSG.cursor), v.maxLength(CURSOR_MAX, PAGE_MSG.cursor), v.description("The previous page's x-next-cursor header; absent for the first page.")),
);

/**
 * A free-text query parameter. Elysia hands a value holding commas ("First, with a comma") to
 * the schema as the list of its parts, so the parts are joined back: the text is what was sent.
 */
export const QueryText = (message: string) =>
  v.pipe(
    v.union([v.string(message), v.array(v.string(message), message)], message),
    v.transform((x) => (Array.isArray(x) ? x.join(",") : x)),
  );

export const Search = v.optional(
  v.pipe(
    QueryText(PAGE_MSG.search),
    v.maxLength(SEARCH_MAX, PAGE_MSG.search),
    v.description("Words to find; each must begin a word of the searched fields (any case; kang finds Kangaroo; punctuation splits words, so spring-sale is two). Text with no letter or digit finds nothing."),
  ),
);

/** The words of a search, as both backends' indexes split text: letters and digits, lower-cased. At most 8. */
export function searchWords(q: string | undefined): string[] {
  if (!q) return [];
  return (q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 8);
}
