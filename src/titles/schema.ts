// One schema for the titles routes and the web forms: the spec's messages live here.
import * as v from "valibot";
import { Cursor, Limit, PAGE_MSG, QueryText, SEARCH_MAX } from "../shared/paging";
import { graphemesAtMost, nameSlug } from "../shared/slug";
import { noControlChars, noControlCharsInText } from "../shared/text";

/**
 * Spec §2 (topic page): the title name lower-cased, every run of characters other than a-z
 * and 0-9 replaced by one hyphen, leading and trailing hyphens trimmed. A name that rule
 * leaves empty keeps its own script's letters, or (emoji only) becomes "title-<code points>"
 * (src/shared/slug.ts), so every name has a page.
 */
export const titleSlug = (name: string) => nameSlug(name, "title", true);

export const TITLE_NAME_MAX = 50;

// The add-title form joins its emoji and the name with one space (spec §5). The 50-character
// bound is on the name the user typed, so the emoji prefix is measured apart (and bounded).
// (Emoji_Component is left out on purpose: it includes the digits, and "2024 plans" is a name.)
const EMOJI_PREFIX = /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|\p{Emoji_Modifier}|\u200d|\ufe0f|\u20e3){1,32}(?: |$)/u;
export const baseName = (name: string) => name.replace(EMOJI_PREFIX, "");

// Free, multi-line text: kept as typed, tabs and line breaks included (src/shared/text.ts).
const optionalText = (what: string, max: number) =>
  v.optional(v.pipe(v.string(`${what} must be text`), v.maxLength(max, `${what} must be at most ${max} characters`), noControlCharsInText(what)));

// Lengths are counted as people count characters (an emoji, a letter with its accents: one),
// with a bound in code units too ("a" plus 900,000 combining marks is one grapheme).

/** The name as typed in the add-title form (before the emoji is joined). */
export const TitleNameInput = v.pipe(
  v.optional(v.string("Title name must be text"), ""),
  v.trim(),
  v.nonEmpty("Title name is required"),
  noControlChars("Title name"),
  v.maxLength(TITLE_NAME_MAX * 10, "Title name must be less than 50 characters"),
  v.check((n) => graphemesAtMost(n, TITLE_NAME_MAX), "Title name must be less than 50 characters"),
);

/**
 * A stored title name: an optional emoji prefix, then at most 50 characters. Any script is a
 * name, and so is an emoji alone ("🎉"): titleSlug gives every one of them a page.
 */
export const TitleName = v.pipe(
  v.optional(v.string("Title name must be text"), ""),
  v.trim(),
  v.nonEmpty("Title name is required"),
  noControlChars("Title name"),
  // Only invisible characters (zero-width spaces and joiners, which trim keeps) is no name.
  v.check((n) => /[^\s\u200b-\u200d\u2060]/u.test(n), "Title name is required"),
  v.maxLength(TITLE_NAME_MAX * 10 + 200, "Title name must be less than 50 characters"),
  v.check((n) => graphemesAtMost(baseName(n), TITLE_NAME_MAX), "Title name must be less than 50 characters"),
);

export const Notes = optionalText("Notes", 20_000);
export const KeyPhrase = optionalText("Message", 20_000);
export const DisplayName = v.optional(
  v.nullable(v.pipe(v.string("Display name must be text"), v.trim(), noControlChars("Display name"), v.maxLength(100, "Display name must be at most 100 characters"))),
);
// PostgreSQL keeps these in `integer` columns (4 bytes): a larger value, which SQLite would
// store, is refused here so both backends accept exactly the same requests (and migrate-data
// never meets a row PostgreSQL cannot hold).
const INT4_MAX = 2_147_483_647;
const Version = v.optional(
  v.pipe(
    v.number("Version must be a number"),
    v.integer("Version must be a whole number"),
    v.minValue(1, "Version must be at least 1"),
    v.maxValue(INT4_MAX, `Version must be at most ${INT4_MAX}`),
  ),
);

/**
 * POST …/titles. `version` says what the caller means: 1 starts a new title (409 when the
 * name is taken); anything else, or nothing, adds the next version of the series. The
 * number stored is always decided by the server (highest + 1), so concurrent calls never
 * collide.
 */
export const CreateTitleBody = v.object({
  name: TitleName,
  originalName: v.optional(v.pipe(v.string("Original name must be text"), noControlChars("Original name"))),
  displayName: DisplayName,
  keyPhrase: KeyPhrase,
  notes: Notes,
  version: Version,
});

/** PUT …/titles/:id. Version numbers belong to the server: a `version` sent is not applied. */
export const UpdateTitleBody = v.object({
  name: v.optional(TitleName),
  displayName: DisplayName,
  keyPhrase: KeyPhrase,
  notes: Notes,
  version: Version,
  order: v.optional(
    v.pipe(
      v.number("Order must be a number"),
      v.integer("Order must be a whole number"),
      v.minValue(-INT4_MAX - 1, `Order must be at least ${-INT4_MAX - 1}`),
      v.maxValue(INT4_MAX, `Order must be at most ${INT4_MAX}`),
    ),
  ),
});

export const TitleQuery = v.object({
  updateAllVersions: v.optional(v.picklist(["true", "false"], "updateAllVersions must be true or false")),
  allVersions: v.optional(v.picklist(["true", "false"], "allVersions must be true or false")),
});

/** Titles per page when the client names no limit, and the most it may ask for (a title may hold 40 KB). */
export const TITLE_PAGE_DEFAULT = 100;
export const TITLE_PAGE_MAX = 500;
export const TITLE_SORTS = ["newest", "oldest", "name"] as const;
export type TitleSort = (typeof TITLE_SORTS)[number];

/** GET …/titles: a page of the topic's titles (x-total-count, x-next-cursor headers). */
export const TitleListQuery = v.object({
  q: v.optional(v.pipe(QueryText(PAGE_MSG.search), v.maxLength(SEARCH_MAX, PAGE_MSG.search), v.description("Text the name contains (any case)."))),
  name: v.optional(v.pipe(QueryText("name must be text"), v.maxLength(500, "name is too long"), v.description("Only the versions of the title with this exact name."))),
  sort: v.optional(v.pipe(v.picklist(TITLE_SORTS, `sort must be one of ${TITLE_SORTS.join(", ")}`), v.description("newest (default), oldest, or name A→Z then version."))),
  limit: Limit(TITLE_PAGE_DEFAULT, TITLE_PAGE_MAX),
  cursor: Cursor,
});

export type CreateTitleInput = v.InferOutput<typeof CreateTitleBody>;
export type UpdateTitleInput = v.InferOutput<typeof UpdateTitleBody>;

/** A title (one message version) as the API returns it. */
export const Title = v.object({
  id: v.number(),
  topicId: v.number(),
  name: v.string(),
  originalName: v.string(),
  displayName: v.nullable(v.string()),
  keyPhrase: v.nullable(v.string()),
  version: v.number(),
  notes: v.string(),
  order: v.number(),
  slug: v.string(),
  /** Slugs this series had before a rename: links made with them still open it. */
  formerSlugs: v.array(v.string()),
  createdBy: v.nullable(v.number()),
  createdByUsername: v.nullable(v.string()),
  createdAt: v.string(),
  updatedAt: v.string(),
});
export type Title = v.InferOutput<typeof Title>;
