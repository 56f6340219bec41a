// One schema for the link routes and the link forms: the messages users see live here.
// Isomorphic: the web dialogs import it too, so nothing server-only belongs in this file.
import * as v from "valibot";
import { isReserved } from "../shared/reserved";
import { noControlChars, noControlCharsInText } from "../shared/text";
import { Cursor, Limit, Search } from "../shared/paging";

export const MAX_URL_LENGTH = 2048;
export const TITLE_MAX = 100;
export const DESCRIPTION_MAX = 255;
export const CODE_MIN = 3;
export const CODE_MAX = 50;
export const CODE_PATTERN = /^[A-Za-z0-9_-]+$/;
export const ROOT_CODE = "root";

export const MSG = {
  url: "Please enter a valid URL",
  urlLength: "URL must be at most 2,048 characters",
  urlScheme: "Only http:// and https:// links can be shortened",
  urlSpaces: "URL must not contain spaces or control characters",
  urlCredentials: "Links with a username or password in them are not allowed",
  urlOwn: "Links to our own short domains cannot be shortened (that would make a redirect loop)",
  title: "Title is required",
  titleLength: "Title must be at most 100 characters",
  description: "Description must be at most 255 characters",
  codeShort: "Short code must be at least 3 characters",
  codeLong: "Short code must be at most 50 characters",
  codeChars: "Short code may only contain letters, numbers, '-' and '_'",
  codeReserved: "That short code is reserved. Please choose another.",
  codeTaken: "That short code is already taken",
  expires: "Please enter a valid date",
  expiresPast: "The expiry date must be in the future",
} as const;

// Any C0/C1 control character or whitespace inside the URL: browsers silently drop some of
// them ("java\tscript:"), which is exactly how filters get bypassed, so refuse them all.
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f-\u009f\u00a0\u1680\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff]/;

/**
 * Checks a destination and returns the reason it is refused, or null. `ownHosts` (server
 * only) are the hosts this instance answers on: a link back to them would loop.
 */
export function destinationProblem(raw: string, ownHosts: string[] = []): string | null {
  if (raw.length > MAX_URL_LENGTH) return MSG.urlLength;
  if (CONTROL_OR_SPACE.test(raw)) return MSG.urlSpaces;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return MSG.url;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return MSG.urlScheme;
  // "http:example.com" and "http:/example.com" parse, but are not what a person typed as a link.
  if (!/^https?:\/\//i.test(raw)) return MSG.url;
  if (!u.hostname) return MSG.url;
  // "http://@host" and "http://user:@host" carry (empty) credentials the URL object drops.
  const authority = raw.replace(/^https?:\/\//i, "").split(/[/?#\\]/)[0] ?? "";
  if (u.username || u.password || authority.includes("@")) return MSG.urlCredentials;
  if (u.href.length > MAX_URL_LENGTH) return MSG.urlLength;
  const hostname = u.hostname.toLowerCase().replace(/\.+$/, "");
  const host = u.port ? `${hostname}:${u.port}` : hostname;
  for (const own of ownHosts) {
    const o = own.toLowerCase();
    // An own host given without a port owns that name on every port.
    if (host === o || (!o.includes(":") && hostname === o) || (o.includes(":") && !u.port && defaultPortHost(u, o) === o)) {
      return MSG.urlOwn;
    }
  }
  return null;
}

// "example.com:443" as the configured host matches "https://example.com/" (default port elided).
function defaultPortHost(u: URL, own: string) {
  const port = u.protocol === "https:" ? "443" : "80";
  return `${u.hostname.toLowerCase().replace(/\.+$/, "")}:${port}` === own ? own : "";
}

const text = (what: string) => v.optional(v.string(`${what} must be text`), "");

// A host name with at least one dot (any script), an optional port, then a path or nothing.
const BARE_HOST = /^(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+[\p{L}\p{N}-]{2,}\.?(?::\d{1,5})?(?:[/?#]|$)/u;

/**
 * "example.com/page" as typed is meant as a web address: https:// is put in front, as Dub and
 * Shlink do. Only for text with no scheme that starts with a dotted host name, so
 * "javascript:…", "data:…" or "mailto:…" are never turned into something else.
 */
export const withScheme = (s: string) => (!/^[a-z][a-z0-9+.-]*:/i.test(s) || /^[^:/?#]+\.[^:/?#]+:\d/.test(s)) && BARE_HOST.test(s) ? `https://${s}` : s;

export const OriginalUrl = v.pipe(
  text("URL"),
  v.trim(),
  v.nonEmpty(MSG.url),
  v.transform(withScheme),
  v.check((s) => destinationProblem(s) === null, (issue) => destinationProblem(String(issue.input)) ?? MSG.url),
);

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

export const CreateLinkBody = v.object({
  originalUrl: OriginalUrl,
  title: Title,
  description: Description,
  expiresAt: ExpiresAt,
  shortCode: OptionalShortCode,
});

export const EditLinkBody = v.object({
  id: v.optional(v.unknown()),
  shortCode: ShortCode,
  originalUrl: OriginalUrl,
  title: Title,
  description: Description,
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
});
export type LinkView = v.InferOutput<typeof LinkView>;

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
});

/** POST …/reset-clicks: the root link is addressed with isRoot=true. */
export const ResetQuery = v.object({ isRoot: flag("true when the link is the root link.") });

// ---- Bulk create, export and import (issue 14) ----

/** Most links one bulk-create request may hold. */
export const BULK_MAX = 1000;
/** Most data rows one import may hold (a 10 MB file of ~100-byte rows). */
export const IMPORT_MAX_ROWS = 100_000;

export const BULK_MSG = {
  notList: "Send the links as a list: { \"links\": [ … ] }",
  empty: "Send at least one link",
  tooMany: `At most ${BULK_MAX.toLocaleString("en")} links per request: send the rest in another request`,
  notObject: "Each link must be an object with originalUrl and title",
  noCode: "Could not generate a free short code. Please try again.",
} as const;

export const BulkCreateBody = v.object({
  // Items are checked one by one (a bad one is refused alone), so the schema says in words what one is.
  links: v.pipe(
    v.array(v.unknown(), BULK_MSG.notList),
    v.minLength(1, BULK_MSG.empty),
    v.maxLength(BULK_MAX, BULK_MSG.tooMany),
    v.description(`1 to ${BULK_MAX.toLocaleString("en")} links, each the body of POST /api/links: originalUrl, title, description?, expiresAt?, shortCode?`),
    // The document types each item as that body (a named component, src/openapi/operations.ts).
    v.metadata({ items: { $ref: "#/$defs/CreateLinkBody" } }),
  ),
});

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
  v.object({ index: v.number(), status: v.literal("refused"), error: ItemError }),
]);
export type BulkItemResult = v.InferOutput<typeof BulkItemResult>;

export const BulkCreateResult = v.object({
  created: v.number(),
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
});
export type ExportRow = v.InferOutput<typeof ExportRow>;

export const ExportJson = v.object({ exportedAt: v.string(), links: v.array(ExportRow) });

/**
 * `rowOffset`: data rows that came before this part of a file, so a file sent in parts (the
 * Import page sends 500 rows at a time) is reported with its own row numbers.
 */
export const ImportQuery = v.object({
  rowOffset: v.optional(v.pipe(v.string(), v.regex(/^\d{1,7}$/, "rowOffset must be a whole number"))),
});

export const IMPORT_FORMATS = ["plain", "shlink", "yourls"] as const;
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
