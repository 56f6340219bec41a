// One schema for the link routes and the link forms: the messages users see live here.
// Isomorphic: the web dialogs import it too, so nothing server-only belongs in this file.
import * as v from "valibot";
import { isReserved } from "../shared/reserved";
import { noControlChars, noControlCharsInText } from "../shared/text";
import { Cursor, Limit, QueryText, Search } from "../shared/paging";
import { LinkTags, TAG_NAME_MAX } from "../tags/schema";
import { OriginalUrl, URL_MSG, text } from "./destination";
import { SmartImport, SmartInput } from "../smart/schema";

// The destination's rules are in destination.ts (smart links' schema uses them too, and this file uses smart links').
export { OriginalUrl, destinationProblem, withScheme } from "./destination";

export const TITLE_MAX = 100;
export const DESCRIPTION_MAX = 255;
export const CODE_MIN = 3;
export const CODE_MAX = 50;
export const CODE_PATTERN = /^[A-Za-z0-9_-]+$/;
export const ROOT_CODE = "root";

export const MSG = {
  ...URL_MSG,
  title: "Title is required",
  titleLength: "Title must be at most 100 characters",
  description: "Description must be at most 255 characters",
  codeShort: "Short code must be at least 3 characters",
  codeLong: "Short code must be at most 50 characters",
  codeChars: "Short code may only contain letters, numbers, '-' and '_'",
  codeCharsImported: "Short code may only contain letters, numbers, '-' and '_', with '/' between its parts",
  codeReserved: "That short code is reserved. Please choose another.",
  codeTaken: "That short code is already taken",
  expires: "Please enter a valid date",
  expiresPast: "The expiry date must be in the future",
  externalIdLength: "externalId must be at most 255 characters",
  externalIdOther: "This externalId names a link in the other tracker",
} as const;

export const Title = v.pipe(text("Title"), v.trim(), v.nonEmpty(MSG.title), noControlChars("Title"), v.maxLength(TITLE_MAX, MSG.titleLength));

export const Description = v.pipe(
  v.optional(v.nullable(v.string("Description must be text")), ""),
  v.transform((s) => (s ?? "").trim()),
  v.maxLength(DESCRIPTION_MAX, MSG.description),
  // As every other text field: a NUL, which PostgreSQL cannot store, is refused on both backends.
  noControlCharsInText("Description"),
);

export const ShortCode = v.pipe(
  v.optional(v.string("Short code must be text"), ""),
  v.trim(),
  v.minLength(CODE_MIN, MSG.codeShort),
  v.maxLength(CODE_MAX, MSG.codeLong),
  v.regex(CODE_PATTERN, MSG.codeChars),
  v.check((c) => !isReserved(c), MSG.codeReserved),
);

/** Optional custom code on create: empty means "generate one". */
const OptionalShortCode = v.pipe(
  v.optional(v.nullable(v.string("Short code must be text")), ""),
  v.transform((s) => (s ?? "").trim()),
  v.check((s) => s === "" || s.length >= CODE_MIN, MSG.codeShort),
  v.check((s) => s.length <= CODE_MAX, MSG.codeLong),
  v.check((s) => s === "" || CODE_PATTERN.test(s), MSG.codeChars),
  v.check((s) => s === "" || !isReserved(s), MSG.codeReserved),
);

/** Optional expiry: any date the browser's date/time picker or an API client sends, stored as ISO. */
export const ExpiresAt = v.pipe(
  v.optional(v.nullable(v.string("Expiry must be text")), ""),
  v.transform((s) => (s ?? "").trim()),
  v.check((s) => s === "" || (s.length <= 40 && !Number.isNaN(Date.parse(s))), MSG.expires),
  v.transform((s) => (s === "" ? null : new Date(Date.parse(s)).toISOString())),
);

export const EXTERNAL_ID_MAX = 255;

/**
 * The client's own id for a link (idempotent create): a create naming an externalId the user's
 * link already has answers with that link instead of making another. Empty means none.
 */
export const ExternalId = v.pipe(
  v.optional(v.nullable(v.string("externalId must be text")), ""),
  v.transform((s) => (s ?? "").trim()),
  v.maxLength(EXTERNAL_ID_MAX, MSG.externalIdLength),
  noControlChars("externalId"),
  v.transform((s) => (s === "" ? null : s)),
  v.description(
    "Your own id for this link, unique among your links (at most 255 characters). A create naming an externalId you already used answers 200 with that link, unchanged, instead of making a second: a retried request is safe.",
  ),
);

export const CreateLinkBody = v.object({
  originalUrl: OriginalUrl,
  title: Title,
  description: Description,
  expiresAt: ExpiresAt,
  shortCode: OptionalShortCode,
  externalId: ExternalId,
  tags: v.optional(LinkTags),
  smart: v.optional(
    v.pipe(
      v.nullable(SmartInput),
      v.description("Smart settings (password, click limit and fallback, rules, split), as PUT …/{id}/smart takes them. Absent or null: a plain link."),
    ),
  ),
});

/**
 * Smart settings on an edit (PUT and PATCH alike): absent keeps the link's, an object replaces
 * them as PUT …/{id}/smart does (its absent `password` keeps the current one), null removes
 * them all (the password too).
 */
const EditSmart = v.optional(
  v.pipe(
    v.nullable(SmartInput),
    v.description("Absent: the link's smart settings are kept. An object replaces them as PUT …/{id}/smart does (an absent password is kept). null: every setting removed, the password too."),
  ),
);

/** On PUT too an absent `tags` keeps the link's tags (clients older than tags send none); a list replaces them. */
const EditTags = v.optional(LinkTags);

/**
 * A code an import keeps as the source tool issued it: besides the create's codes, 1–2
 * characters (YOURLS's first 1,295 keywords) and Shlink's multi-segment slugs ("promo/spring"),
 * each part letters, digits, '-' and '_'. Safe means no part is empty and the first is no word
 * of the app's own (a reserved first part would be shadowed by, or shadow, a page or a route).
 */
export const IMPORTED_CODE_PATTERN = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_-]+)*$/;
const ImportedShortCode = v.pipe(
  v.optional(v.nullable(v.string("Short code must be text")), ""),
  v.transform((s) => (s ?? "").trim()),
  v.check((s) => s.length <= CODE_MAX, MSG.codeLong),
  v.check((s) => s === "" || IMPORTED_CODE_PATTERN.test(s), MSG.codeCharsImported),
  v.check((s) => s === "" || !isReserved(s.split("/")[0]!), MSG.codeReserved),
);
const ImportedCount = v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(2_147_483_647))));

/** One link of an import: a create's body, with the source's code, creation time and visit count kept. */
export const ImportLinkBody = v.object({
  ...CreateLinkBody.entries,
  shortCode: ImportedShortCode,
  createdAt: v.optional(v.nullable(v.pipe(v.string(), v.check((s) => s === "" || !Number.isNaN(Date.parse(s)), MSG.expires), v.transform((s) => (s === "" ? null : new Date(Date.parse(s)).toISOString()))))),
  importedClicks: ImportedCount,
  /** Our own export's settings (a password as its hash, taken as it is), or a create's. */
  smart: v.optional(
    v.pipe(
      v.nullable(SmartImport),
      v.description("Smart settings as the export writes them (the password as `passwordHash`, stored as it is) or as a create takes them (a plain `password` is hashed). Null: a plain link."),
    ),
  ),
});

export const EditLinkBody = v.object({
  id: v.optional(v.unknown()),
  shortCode: ShortCode,
  originalUrl: OriginalUrl,
  title: Title,
  description: Description,
  tags: EditTags,
  smart: EditSmart,
});

/**
 * Editing a Link Tracker link. The spec's edit payload includes `shortCode` (3–50), as on the
 * brand tracker: a new code renames the link (the old short URL stops working; the dialog
 * says so), the same code or none keeps it.
 * PUT replaces: an absent description or expiry clears it, like the brand tracker's edit.
 */
export const EditMainLinkBody = v.object({
  id: v.optional(v.unknown()),
  shortCode: v.optional(v.nullable(v.pipe(v.string("Short code must be text"), v.trim(), v.minLength(CODE_MIN, MSG.codeShort), v.maxLength(CODE_MAX, MSG.codeLong), v.regex(CODE_PATTERN, MSG.codeChars), v.check((c) => !isReserved(c), MSG.codeReserved)))),
  originalUrl: OriginalUrl,
  title: Title,
  description: Description,
  expiresAt: ExpiresAt,
  tags: EditTags,
  smart: EditSmart,
});

/**
 * PATCH: only the fields sent change; the rest keep the link's values. A field sent as null
 * (description, expiresAt) clears it, as an absent one does on PUT. Each field is checked as on PUT.
 */
export const PatchMainLinkBody = v.partial(EditMainLinkBody);
export const PatchLinkBody = v.partial(EditLinkBody);

/** Longest code a lookup takes: the longest a link can have (an imported multi-segment slug). */
export const LOOKUP_CODE_MAX = 200;

/** GET …/lookup?code=: one of your links by its short code (any case is not folded: codes are case-sensitive). */
export const LookupQuery = v.object({
  code: v.pipe(
    v.string("code is required"),
    v.nonEmpty("code is required"),
    v.maxLength(LOOKUP_CODE_MAX, `code must be at most ${LOOKUP_CODE_MAX} characters`),
    v.description("The short code, exactly as in the short URL (codes are case-sensitive)."),
  ),
});

/** Why a destination's host may imitate another site (see src/links/hostWarning.ts). */
export const HostWarning = v.object({ asciiHost: v.string(), scripts: v.array(v.string()), message: v.string() });
export type HostWarning = v.InferOutput<typeof HostWarning>;

export const lookAlikeMessage = (scripts: string[]) =>
  `Look-alike address: its name mixes ${scripts.join(" and ")} letters, so it may imitate another site.`;

/** A link as the API returns it. */
export const LinkView = v.object({
  id: v.number(),
  shortCode: v.string(),
  shortUrl: v.string(),
  originalUrl: v.string(),
  title: v.string(),
  description: v.nullable(v.string()),
  active: v.boolean(),
  isSystem: v.boolean(),
  clickCount: v.number(),
  createdAt: v.string(),
  updatedAt: v.string(),
  expiresAt: v.nullable(v.string()),
  /** Set when the destination's host mixes writing systems: shown as a warning with its punycode name. */
  hostWarning: v.nullable(HostWarning),
  /** The client's own id given at create (idempotent create), or null. */
  externalId: v.nullable(v.string()),
  /** The link's tag names, A→Z. */
  tags: v.array(v.string()),
  /** Visits counted by the tool the link was imported from (Shlink, YOURLS), apart from clickCount; null when none. */
  importedClicks: v.nullable(v.number()),
  /**
   * Which smart-link settings it uses (issue 24; GET …/{id}/smart has them): password, click
   * limit, redirect rules, A/B split. Null for a plain link.
   */
  smart: v.nullable(v.object({ protected: v.boolean(), limited: v.boolean(), spent: v.boolean(), ruled: v.boolean(), split: v.boolean() })),
});
export type LinkView = v.InferOutput<typeof LinkView>;

/** Days of clicks a list row's sparkline shows (today, UTC, last). */
export const SPARK_DAYS = 14;

/** A link in a list page: the link, and its clicks per UTC day over the last SPARK_DAYS days. */
export const LinkListItem = v.object({
  ...LinkView.entries,
  /** Clicks per UTC day, oldest first, today last: SPARK_DAYS numbers (read from the daily roll-ups). */
  recentClicks: v.array(v.number()),
});
export type LinkListItem = v.InferOutput<typeof LinkListItem>;

export type Tracker = "main" | "brand";

const flag = (about: string) => v.optional(v.pipe(v.picklist(["true", "false"]), v.description(about)));

/** Links per list page when the client names no limit, and the most it may ask for. */
export const LINK_PAGE_DEFAULT = 100;
export const LINK_PAGE_MAX = 1000;

/**
 * Most links a list sorted by clicks may hold: click order has no index, so each page sorts the
 * whole list (measured 21 s for a million links on a loaded machine, holding the thread that
 * serves redirects); up to this many it is a few milliseconds.
 */
export const CLICK_SORT_MAX = 5000;
export const CLICK_SORT_MSG = `Sorting by clicks works for up to ${CLICK_SORT_MAX.toLocaleString("en")} links: search or filter first, or choose another sort`;

/** A list's orders: newest first (the default), oldest, title A→Z, code A→Z, most and least clicked. */
export const LINK_SORTS = ["newest", "oldest", "title", "code", "most", "least"] as const;
export type LinkSort = (typeof LINK_SORTS)[number];
/** all; active (redirects now); expired (past its expiry); inactive (switched off). */
export const LINK_STATUSES = ["all", "active", "expired", "inactive"] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];

/**
 * GET /api/links and /api/pic-drift-links: a page of links (x-total-count and x-next-cursor
 * headers, src/shared/paging.ts); on the brand tracker the instance owner may ask for the root
 * link too (first page only, outside the count).
 */
export const ListQuery = v.object({
  q: Search,
  sort: v.optional(v.pipe(v.picklist(LINK_SORTS, `sort must be one of ${LINK_SORTS.join(", ")}`), v.description("Order of the list (default newest)."))),
  status: v.optional(v.pipe(v.picklist(LINK_STATUSES, `status must be one of ${LINK_STATUSES.join(", ")}`), v.description("Which links (default all)."))),
  limit: Limit(LINK_PAGE_DEFAULT, LINK_PAGE_MAX),
  cursor: Cursor,
  includeRoot: flag("Brand tracker: with true, the instance owner's root link comes first on the first page."),
  tags: v.optional(
    v.pipe(
      QueryText("tags must be comma-separated tag names"),
      v.maxLength(20 * (TAG_NAME_MAX + 1), "tags is too long"),
      v.description("Comma-separated tag names (any case): only links carrying every one of them."),
    ),
  ),
});

/** The tag names of a list's `tags` parameter. */
export const listTags = (raw: string | undefined) => [...new Set((raw ?? "").split(",").map((t) => t.trim()).filter(Boolean))];

/** POST …/reset-clicks: the root link is addressed with isRoot=true. */
export const ResetQuery = v.object({ isRoot: flag("true when the link is the root link.") });

// ---- Bulk create, export and import (issue 14) ----

/** Most links one bulk-create request may hold. */
export const BULK_MAX = 1000;
/**
 * JSON values one bulk-create body may hold (the body reader's count bound, src/http/bodyLimit.ts):
 * 1,000 items shaped like the JSON export's links (13 fields, 20 tags) fit.
 */
export const BULK_MAX_VALUES = BULK_MAX * 40;
/** Most data rows one import may hold (a 10 MB file of ~100-byte rows). */
export const IMPORT_MAX_ROWS = 100_000;

export const BULK_MSG = {
  notList: "Send the links as a list: { \"links\": [ … ] }",
  empty: "Send at least one link",
  tooMany: `At most ${BULK_MAX.toLocaleString("en")} links per request: send the rest in another request`,
  notObject: "Each link must be an object with originalUrl and title",
  externalIdTaken: "A link with this externalId exists already",
  noCode: "Could not generate a free short code. Please try again.",
} as const;

export const BulkCreateBody = v.object({
  // Items are checked one by one (a bad one is refused alone), so the schema says in words what one is.
  links: v.pipe(
    v.array(v.unknown(), BULK_MSG.notList),
    v.minLength(1, BULK_MSG.empty),
    v.maxLength(BULK_MAX, BULK_MSG.tooMany),
    v.description(`1 to ${BULK_MAX.toLocaleString("en")} links, each the body of POST /api/links: originalUrl, title, description?, expiresAt?, shortCode?, externalId?, tags?, smart? (an item whose smart settings are refused is refused alone)`),
    // The document types each item as that body (a named component, src/openapi/operations.ts).
    v.metadata({ items: { $ref: "#/$defs/CreateLinkBody" } }),
  ),
});

/**
 * POST /api/links/import's JSON body, as the document states it: this API's JSON export as it is,
 * or its list of links alone, each item a create body (the export's read-only fields are not
 * refused). The importer reads the items one by one (src/links/import.ts), so a bad link is a
 * reported row and not a 400 for the whole file: the document types the items, the route does
 * not validate the body against this.
 */
const ImportedLinks = v.pipe(
  v.array(v.unknown()),
  v.maxLength(IMPORT_MAX_ROWS),
  v.description(`The links, at most ${IMPORT_MAX_ROWS.toLocaleString("en")}: each checked as the body of POST /api/links (the export's read-only fields are ignored).`),
  v.metadata({ items: { $ref: "#/$defs/CreateLinkBody" } }),
);
export const ImportLinksBody = v.union([
  v.object({ exportedAt: v.optional(v.pipe(v.string(), v.description("The export's time: ignored."))), links: ImportedLinks }),
  ImportedLinks,
]);

/** Why one item or row was refused: the error shape's inner object (a stable `code`, the message, the field). */
export const ItemError = v.object({
  code: v.picklist(["VALIDATION", "CONFLICT", "BAD_REQUEST", "QUOTA_EXCEEDED"]),
  message: v.string(),
  fields: v.optional(v.record(v.string(), v.string())),
});
export type ItemError = v.InferOutput<typeof ItemError>;

/** One item of a bulk create, in the order sent: created with its link, or refused and why. */
export const BulkItemResult = v.variant("status", [
  v.object({ index: v.number(), status: v.literal("created"), link: LinkView }),
  /** The item's externalId names a link you already have: that link, unchanged (a retried item). */
  v.object({ index: v.number(), status: v.literal("existing"), link: LinkView }),
  v.object({ index: v.number(), status: v.literal("refused"), error: ItemError }),
]);
export type BulkItemResult = v.InferOutput<typeof BulkItemResult>;

export const BulkCreateResult = v.object({
  created: v.number(),
  /** Items whose externalId named a link you already had (nothing was made for them). */
  existing: v.number(),
  refused: v.number(),
  results: v.array(BulkItemResult),
});
export type BulkCreateResult = v.InferOutput<typeof BulkCreateResult>;

/** A link in an export, with its click count. The CSV has the same columns (see EXPORT_COLUMNS). */
export const ExportRow = v.object({
  shortCode: v.string(),
  shortUrl: v.string(),
  originalUrl: v.string(),
  title: v.string(),
  description: v.nullable(v.string()),
  clickCount: v.number(),
  active: v.boolean(),
  createdAt: v.string(),
  updatedAt: v.string(),
  expiresAt: v.nullable(v.string()),
  /** Tag names, A→Z (the CSV's tags cell: comma-separated). */
  tags: v.array(v.string()),
  /** Visits counted by the tool the link was imported from, or null. */
  importedClicks: v.nullable(v.number()),
  /**
   * The link's smart settings as an import takes them back (ImportLinkBody's `smart`): the
   * password as `passwordHash` (never in plain text), no click count; null for a plain link.
   * The CSV's `smart` cell holds the same object as JSON.
   */
  smart: v.pipe(
    v.nullable(v.record(v.string(), v.unknown())),
    v.description("The link's smart settings as an import takes them back: the password only as `passwordHash`, never in plain text; no click count. Null for a plain link. The CSV's `smart` cell holds the same object as JSON."),
  ),
});
export type ExportRow = v.InferOutput<typeof ExportRow>;

export const ExportJson = v.object({ exportedAt: v.string(), links: v.array(ExportRow) });

/**
 * `rowOffset`: data rows that came before this part of a file, so a file sent in parts (the
 * Import page sends 500 rows at a time) is reported with its own row numbers.
 */
export const ImportQuery = v.object({
  rowOffset: v.optional(v.pipe(v.string(), v.regex(/^\d{1,7}$/, "rowOffset must be a whole number"))),
  brandDomains: v.optional(
    v.pipe(
      QueryText("brandDomains must be comma-separated domain names"),
      v.maxLength(2000, "brandDomains is too long"),
      v.regex(/^[A-Za-z0-9.:,\s-]*$/, "brandDomains must be comma-separated domain names"),
      v.description("A Shlink export's domains (comma-separated) whose links go to the brand tracker; `default` names Shlink's default domain (the empty domain column). Every other link goes to the Link Tracker."),
    ),
  ),
});

/** The domains of an import's `brandDomains`, lower-cased; "default" stands for Shlink's empty domain column. */
export const brandDomainSet = (raw: string | undefined) =>
  new Set((raw ?? "").split(",").map((d) => d.trim().toLowerCase()).filter(Boolean).map((d) => (d === "default" ? "" : d)));

export const IMPORT_FORMATS = ["plain", "shlink", "yourls", "json"] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** One data row of an import. `row` counts the header as row 1, as a spreadsheet shows the file. */
export const ImportRowResult = v.variant("status", [
  v.object({
    row: v.number(),
    status: v.literal("imported"),
    shortCode: v.string(),
    shortUrl: v.string(),
    /** What the import changed to make the row fit (an empty title filled, a long one shortened). */
    note: v.optional(v.string()),
  }),
  v.object({ row: v.number(), status: v.literal("skipped"), error: ItemError }),
]);
export type ImportRowResult = v.InferOutput<typeof ImportRowResult>;

export const ImportReport = v.object({
  format: v.picklist(IMPORT_FORMATS),
  rows: v.number(),
  imported: v.number(),
  skipped: v.number(),
  results: v.array(ImportRowResult),
});
export type ImportReport = v.InferOutput<typeof ImportReport>;
