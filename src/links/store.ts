// The only SQL for short links, one text for SQLite and PostgreSQL (src/db/database.ts).
// Ownership is inside every WHERE clause, so "not yours" and "missing" are the same null → 404.
import type { Database, Queries } from "../db/database";
import { uniqueOr } from "../db/constraints";
import { badRequest, conflict } from "../shared/errors";
import { nowIso } from "../shared/time";
import { clearLinkClicks } from "../analytics/store";
import { QUOTA_MSG, assertRoom, roomLeft } from "../plans/quotas";
import { CLICK_SORT_MAX, CLICK_SORT_MSG, MSG, type LinkSort, type LinkStatus, type Tracker } from "./schema";
import type { CursorKeys, Page } from "../http/paging";
import type { SmartImportParsed, SmartInputParsed } from "../smart/schema";
import { appendEvents } from "../events/store";
import { tagKey, writeLinkTags } from "../tags/store";

export type LinkRow = {
  id: number;
  user_id: number | null;
  tracker: Tracker;
  short_code: string;
  original_url: string;
  title: string;
  description: string | null;
  active: number;
  is_system: number;
  click_count: number;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  /** The client's own id for the link (idempotent create), unique per user; null when none was given. */
  external_id: string | null;
  /** The link's tag names joined by U+001F (see TAG_SEP), or null when it has none. */
  tags: string | null;
  /** The visits the tool it was imported from had counted (kept apart from our clicks), or null. */
  imported_clicks: number | null;
  /** Smart-link settings (src/smart/schema.ts SmartStored as JSON); null for a plain link. */
  smart: string | null;
  /** How many times its clicks were reset (migration 0023; RedirectRow says why). */
  clicks_reset?: number | null;
};

/** Separates tag names in LinkRow.tags: a control character, which no tag name may hold. */
export const TAG_SEP = "\u001f";
export const tagNames = (r: Pick<LinkRow, "tags">) => (r.tags ? r.tags.split(TAG_SEP).sort((a, b) => a.localeCompare(b)) : []);

/** An item of createMany the owner's link quota had no room for. */
export const OVER_QUOTA = "over-quota" as const;

/** An item of createMany whose externalId names a link the user already has: that link. */
export type Existing = { existing: LinkRow };

/** A link to write in a bulk create: `shortCode` null means "generate one". */
export type NewLink = { shortCode: string | null; originalUrl: string; title: string; description: string; expiresAt: string | null; externalId?: string | null; tags?: readonly string[] | undefined; tagIds?: readonly number[] | undefined;
  /** An import's: the source's creation time (ISO) and visit count. */
  createdAt?: string | null | undefined;
  importedClicks?: number | null | undefined;
  /** Smart settings as a create sent them (the service turns them into smartJson, hashed and checked). */
  smart?: SmartInputParsed | SmartImportParsed | null | undefined;
  /** The settings to store (SmartStored as JSON), or null for a plain link. */
  smartJson?: string | null | undefined;
};

/** Generated codes tried per link before it is reported as refused (64^7 codes: never in practice). */
const GENERATE_TRIES = 10;

/** What the redirect needs, for every link at start (the in-memory map). */
export type RedirectRow = Pick<LinkRow, "id" | "tracker" | "short_code" | "original_url" | "active" | "expires_at" | "smart"> & {
  /** A smart link's clicks so far (its click limit counts from them); null for a plain link. */
  click_count?: number | null;
  /**
   * How many times the link's clicks were reset (migration 0023): a higher number than the one
   * an instance saw restarts its click-limit count (smart/runtime.ts seed).
   */
  clicks_reset?: number | null;
};

/**
 * The redirect's columns: a smart link's click count only for smart links, so loading the map
 * reads no count for the plain ones.
 */
const redirectCols = (t: string) =>
  `${t}id, ${t}tracker, ${t}short_code, ${t}original_url, ${t}active, ${t}expires_at, ${t}smart, ${t}clicks_reset, ` +
  `CASE WHEN ${t}smart IS NOT NULL THEN COALESCE((SELECT clicks FROM link_click_counts WHERE link_id = ${t}id), 0) END AS click_count`;

/** What the redirect map keeps of a plain link (allForRedirect). */
const PLAIN_REDIRECT_COLS = "id, tracker, short_code, original_url, active, expires_at";
export type PlainRedirectRow = Pick<RedirectRow, "id" | "tracker" | "short_code" | "original_url" | "active" | "expires_at">;

/** Links read per statement while the redirect map loads (keyset pages, see allForRedirect). */
const REDIRECT_PAGE = 20_000;

// click_count comes from link_click_counts (migrations/0003): the click writer never rewrites a link row.
const BASE_COLS =
  "id, user_id, tracker, short_code, original_url, title, description, active, is_system, " +
  "COALESCE((SELECT clicks FROM link_click_counts WHERE link_id = short_links.id), 0) AS click_count, created_at, updated_at, expires_at, external_id, imported_clicks, smart, clicks_reset";

const INSERT = "INSERT INTO short_links (user_id, tracker, short_code, original_url, title, description, expires_at, created_at, updated_at, external_id, imported_clicks, smart) VALUES";
/** One row's values for INSERT, in its column order. An import keeps the source's creation time. */
const ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
const rowValues = (userId: number, tracker: Tracker, code: string, f: Fields & Pick<NewLink, "externalId" | "createdAt" | "importedClicks" | "smartJson">, now: string) =>
  [userId, tracker, code, f.originalUrl, f.title, f.description || null, f.expiresAt, f.createdAt ?? now, now, f.externalId ?? null, f.importedClicks ?? null, f.smartJson ?? null] as const;

// Bulk create and import: many rows per INSERT, and a taken code returns no row instead of
// failing the statement, so one clash neither aborts its batch's transaction (PostgreSQL aborts
// a transaction at any error) nor costs an exception. A new link has no clicks, so the count is
// a constant here rather than a subquery per row. No conflict target: an externalId another
// connection wrote meanwhile (PostgreSQL) is skipped like a taken code, never an error that
// would abort the batch (the externalIds taken before are sorted out first, see createMany).
const insertIfFree = (rows: number) =>
  `${INSERT} ${Array(rows).fill(ROW).join(", ")} ON CONFLICT DO NOTHING
   RETURNING id, user_id, tracker, short_code, original_url, title, description, active, is_system, 0 AS click_count, created_at, updated_at, expires_at, external_id, imported_clicks, NULL AS tags, smart, 0 AS clicks_reset`;

/**
 * short_code is the only unique column a link write can clash on: a code taken between the
 * route's check and the write (another process, the CLI) is refused like one taken before.
 */
export const codeConflict = () => conflict(MSG.codeTaken, { shortCode: MSG.codeTaken });

/**
 * An edit's smart settings: undefined leaves the column as it is (so an edit that does not name
 * them never writes back settings read before a concurrent PUT …/smart), else the JSON or null.
 */
const SMART_SET = "smart = CASE WHEN ? = 1 THEN ? ELSE smart END";
const smartParams = (json: string | null | undefined) => (json === undefined ? [0, null] : [1, json]);

/** A link's created/updated event, written with the row (src/events). */
const linkEvent = (type: "link.created" | "link.updated", r: LinkRow) =>
  ({ type, userId: r.user_id, linkId: r.id, data: { id: r.id, shortCode: r.short_code, tracker: r.tracker, originalUrl: r.original_url, title: r.title } }) as const;

/**
 * A link's tag names as LinkRow.tags has them: one subquery a row (the link_tags primary key,
 * then the tag's), aggregated in each dialect's own words.
 */
const tagsCol = (pg: boolean) =>
  pg
    ? "(SELECT string_agg(t.name, chr(31)) FROM link_tags lt JOIN tags t ON t.id = lt.tag_id WHERE lt.link_id = short_links.id) AS tags"
    : "(SELECT group_concat(t.name, char(31)) FROM link_tags lt JOIN tags t ON t.id = lt.tag_id WHERE lt.link_id = short_links.id) AS tags";

/** A link's tags as LinkRow.tags has them, read inside a transaction that just wrote them. */
async function tagsOfLink(q: Queries, linkId: number) {
  const rows = await q.all<{ name: string }>("SELECT t.name FROM link_tags lt JOIN tags t ON t.id = lt.tag_id WHERE lt.link_id = ?", linkId);
  return rows.length ? rows.map((r) => r.name).join(TAG_SEP) : null;
}

/**
 * One statement's row, its tags when given (`tagIds`: exactly these; undefined keeps them) and
 * its event, in one transaction; no event when no row.
 */
const withEvent = (db: Database, type: "link.created" | "link.updated", text: string, params: (string | number | null)[], tagIds?: readonly number[], before?: (q: Queries) => Promise<void>) =>
  db.tx(async (q) => {
    await before?.(q);
    let row = await q.get<LinkRow>(text, ...params);
    if (row && tagIds) {
      await writeLinkTags(q, row.user_id!, row.id, tagIds);
      row = { ...row, tags: await tagsOfLink(q, row.id) };
    }
    if (row) await appendEvents(q, [linkEvent(type, row)]);
    return row;
  });

type Fields = { originalUrl: string; title: string; description: string; expiresAt: string | null };

/**
 * The owner's links, counted inside a write's transaction (both trackers; the system root link
 * has no owner). PostgreSQL: the user's row is locked first (NO KEY: the links' own foreign key
 * to it does not wait), so two creates on two connections count one after the other and cannot
 * both take the last place; SQLite's BEGIN IMMEDIATE already runs one writer at a time.
 * Counted only when there is a cap: the index range read grows with the count, up to the cap.
 */
async function ownedLinks(q: Queries, userId: number, cap: number) {
  if (cap <= 0) return 0;
  if (q.dialect === "postgres") await q.get("SELECT 1 AS x FROM users WHERE id = ? FOR NO KEY UPDATE", userId);
  return (await q.get<{ n: number }>("SELECT COUNT(*) AS n FROM short_links WHERE user_id = ?", userId))!.n;
}

/** What a list page asks for: every part is bound or picked from a whitelist, never spliced from input. */
export type LinkListQuery = { words: string[]; sort: LinkSort; status: LinkStatus; limit: number; after: CursorKeys | null; tags: readonly string[] };

const L = "short_links";
const CLICKS = `COALESCE((SELECT clicks FROM link_click_counts WHERE link_id = ${L}.id), 0)`;
/** BASE_COLS with every column named by its table: a search joins the index, whose columns share the names. */
const BASE_QCOLS =
  ["id", "user_id", "tracker", "short_code", "original_url", "title", "description", "active", "is_system"].map((c) => `${L}.${c}`).join(", ") +
  `, ${CLICKS} AS click_count, ${L}.created_at, ${L}.updated_at, ${L}.expires_at, ${L}.external_id, ${L}.imported_clicks, ${L}.smart, ${L}.clicks_reset`;

/**
 * Each sort: its ORDER BY keys (one direction for all, so a row-value comparison is the
 * keyset), the cursor's key kinds and how a row gives them. Newest and oldest are creation
 * order, the id: the list's index and the search index both hold it in that order. Title and
 * code compare in byte order on PostgreSQL too (its indexes are COLLATE "C"), so both backends
 * page alike.
 */
const SORTS: Record<LinkSort, { keys: (pg: boolean) => string[]; desc: boolean; kinds: ("string" | "int")[]; of: (r: LinkRow) => CursorKeys }> = {
  newest: { keys: () => [`${L}.id`], desc: true, kinds: ["int"], of: (r) => [r.id] },
  oldest: { keys: () => [`${L}.id`], desc: false, kinds: ["int"], of: (r) => [r.id] },
  title: { keys: (pg) => [pg ? `${L}.title COLLATE "C"` : `${L}.title`, `${L}.id`], desc: false, kinds: ["string", "int"], of: (r) => [r.title, r.id] },
  code: { keys: (pg) => [pg ? `${L}.short_code COLLATE "C"` : `${L}.short_code`], desc: false, kinds: ["string"], of: (r) => [r.short_code] },
  // Click order has no index (the count lives apart and changes with every click): each page
  // sorts the user's links, and a link whose count moves between pages may show twice or not.
  most: { keys: () => [CLICKS, `${L}.id`], desc: true, kinds: ["int", "int"], of: (r) => [r.click_count, r.id] },
  least: { keys: () => [CLICKS, `${L}.id`], desc: false, kinds: ["int", "int"], of: (r) => [r.click_count, r.id] },
};

/**
 * A narrowed list (a search, a status) is counted up to this many; past it the total says
 * this number and `capped` (x-total-capped: true). Counting every match of a word found in
 * most of a million links takes hundreds of milliseconds on either backend; the unnarrowed
 * total is stored (link_totals) and always exact.
 */
export const TOTAL_CAP = 1000;

export const linkSortKinds = (sort: LinkSort) => SORTS[sort].kinds;
export const linkCursorKeys = (sort: LinkSort, row: LinkRow) => SORTS[sort].of(row);

/**
 * PostgreSQL's words of a link, a stored column (migrations/pg/0024_search_prefix.sql) that its
 * GIN index is built on: checking a row costs no tokenising, so walking the list in id order
 * and testing each row is cheap when a word is common, and the column has its own statistics
 * for the planner to choose between that walk and the index.
 */
const PG_SEARCH = `${L}.search_words`;

/**
 * Each word must start a word of the link ("kang" finds Kangaroo, "ab3" a code aB3xY9z), as a
 * search box is expected to. Words are letters and digits only (searchWords) and are quoted
 * besides, so nothing of either query language (NEAR, *, :, &, |, !, parentheses) gets through:
 * FTS5 takes a quoted string with `*` after it as a prefix ("" inside doubles a quote);
 * to_tsquery takes a quoted lexeme with `:*` ('' doubles a quote, and a backslash escapes, so
 * both are doubled). Both are answered from the search index. FTS5: a word of 1 to 8
 * characters is a term of its prefix index (migrations/0024), read lazily in id order like a
 * whole word; a longer one gathers the matches of every word it starts before the first row.
 * PostgreSQL: the GIN index's partial match, or the list walked newest first with each row's
 * stored words tested, as its planner chooses (docs/decisions.md, "Search at a million links").
 */
const ftsQuery = (words: readonly string[]) => words.map((w) => `"${w.replaceAll('"', '""')}"*`).join(" AND ");
const tsQuery = (words: readonly string[]) => words.map((w) => `'${w.replaceAll("\\", "\\\\").replaceAll("'", "''")}':*`).join(" & ");

/** `maxPerUser`: MAX_LINKS_PER_USER (0: no cap). */
export type LinksStore = ReturnType<typeof linksStore>;

/**
 * `sharedCodes`: a code names one link across both trackers, as when the brand tracker has no
 * host of its own (service.ts). Otherwise a code is unique per tracker (migration 0026's index).
 */
export function linksStore(db: Database, { maxPerUser = 0, sharedCodes = true }: { maxPerUser?: number; sharedCodes?: boolean } = {}) {
  const COLS = `${BASE_COLS}, ${tagsCol(db.dialect === "postgres")}`;
  const QCOLS = `${BASE_QCOLS}, ${tagsCol(db.dialect === "postgres")}`;
  /**
   * Of `codes`, those the other tracker holds, when codes are shared (none otherwise: the unique
   * index per tracker decides). Inside the write's transaction. PostgreSQL: each code's
   * transaction lock first, in one order, so two writers of one code in the two trackers run one
   * after the other and the second sees the first's row; SQLite's BEGIN IMMEDIATE already does.
   */
  async function takenElsewhere(q: Queries, codes: readonly string[], tracker: Tracker): Promise<Set<string>> {
    if (!sharedCodes || codes.length === 0) return new Set();
    const list = codes.join("\n");
    if (q.dialect === "postgres") {
      await q.all("SELECT pg_advisory_xact_lock(hashtextextended(c, 24)) FROM unnest(string_to_array(?, E'\\n')) AS c ORDER BY hashtextextended(c, 24)", list);
    }
    const rows = await q.all<{ short_code: string }>(`SELECT short_code FROM short_links WHERE tracker != ? AND short_code IN (${codes.map(() => "?").join(", ")})`, tracker, ...codes);
    return new Set(rows.map((r) => r.short_code));
  }
  const refuseElsewhere = (code: string | null, tracker: Tracker) => async (q: Queries) => {
    if (code !== null && (await takenElsewhere(q, [code], tracker)).size > 0) throw codeConflict();
  };
  /**
   * An edit's new code, checked against the other tracker as a create's is; a link keeping its
   * own code is not, so one whose code both trackers hold (written while the brand host was its
   * own) stays editable once codes are shared again.
   */
  const refuseRenameElsewhere = (id: number, code: string | null, tracker: Tracker) => async (q: Queries) => {
    if (!sharedCodes || code === null) return;
    const now = await q.get<{ short_code: string }>("SELECT short_code FROM short_links WHERE id = ?", id);
    if (now && now.short_code !== code) await refuseElsewhere(code, tracker)(q);
  };
  const getOwn = (id: number, userId: number, tracker: Tracker) =>
    db.get<LinkRow>(`SELECT ${COLS} FROM short_links WHERE id = ? AND user_id = ? AND tracker = ?`, id, userId, tracker);
  const getSystem = (id: number, tracker: Tracker) =>
    db.get<LinkRow>(`SELECT ${COLS} FROM short_links WHERE id = ? AND is_system = 1 AND tracker = ?`, id, tracker);

  /**
   * Many links (at most a WRITE_BATCH: 9 values a row) in one transaction, a row each, so an
   * item is written whole or not at all; `shortCode: null` asks for a generated one (`generate`,
   * retried on a clash). The result is aligned with `items`: the row, null when the code was
   * taken, or OVER_QUOTA when the owner's link quota was full before the item's turn (items
   * take the places left in their order, as if written one by one). One multi-row INSERT a
   * round (PostgreSQL: one round trip for the batch, about half the time of single-row
   * statements, even pipelined; 100,000 rows: .tmp measurements in docs/decisions.md), its rows
   * matched to items by code, since RETURNING's order is not promised. Of two items naming one
   * code the first gets it, as written one by one.
   */
  const createMany = (userId: number, tracker: Tracker, items: readonly NewLink[], generate: () => string | null) =>
    db.tx(async (q) => {
      const now = nowIso();
      const rows: (LinkRow | null | typeof OVER_QUOTA | Existing)[] = items.map(() => null);
      let room = roomLeft(await ownedLinks(q, userId, maxPerUser), maxPerUser);
      let pending = items.map((_, i) => i);
      // Every round decides at least one item or redraws a generated code, so the rounds are
      // bounded by the items plus the redraws.
      for (let round = 0; pending.length > 0 && room > 0 && round < GENERATE_TRIES + items.length; round++) {
        // An externalId the user already has answers with that link (a retried item), whether
        // it was written before this call or by an earlier item of it.
        const named = [...new Set(pending.flatMap((i) => (items[i]!.externalId ? [items[i]!.externalId!] : [])))];
        if (named.length > 0) {
          const found = new Map((await q.all<LinkRow>(`SELECT ${COLS} FROM short_links WHERE user_id = ? AND external_id IN (${named.map(() => "?").join(", ")})`, userId, ...named)).map((r) => [r.external_id, r]));
          for (const i of pending) {
            const hit = items[i]!.externalId ? found.get(items[i]!.externalId!) : undefined;
            if (hit) rows[i] = { existing: hit };
          }
          pending = pending.filter((i) => !rows[i]);
        }
        // At most `room` items are tried: one that fails (its code taken) hands its place to
        // the next item in a later round. Of two items naming one externalId only the first
        // is tried; the second finds its link next round.
        const trying: number[] = [];
        const claimedIds = new Set<string>();
        for (const i of pending) {
          if (trying.length >= room) break;
          const ext = items[i]!.externalId;
          if (ext && claimedIds.has(ext)) continue;
          if (ext) claimedIds.add(ext);
          trying.push(i);
        }
        const claims = new Map<string, number>();
        for (const i of trying) {
          const code = items[i]!.shortCode ?? generate();
          if (code !== null && !claims.has(code)) claims.set(code, i);
        }
        // A code the other tracker holds (codes shared) is taken, like one this tracker holds.
        for (const code of await takenElsewhere(q, [...claims.keys()], tracker)) claims.delete(code);
        if (claims.size > 0) {
          const values = [...claims].flatMap(([code, i]) => rowValues(userId, tracker, code, items[i]!, now));
          for (const row of await q.all<LinkRow>(insertIfFree(claims.size), ...values)) {
            const i = claims.get(row.short_code)!;
            const tagIds = items[i]!.tagIds;
            if (tagIds?.length) {
              await writeLinkTags(q, userId, row.id, tagIds);
              row.tags = await tagsOfLink(q, row.id);
            }
            rows[i] = row;
            room--;
          }
        }
        // A given code that is taken stays refused; a generated one is tried again; an item
        // not tried this round waits for a place.
        const tried = new Set(trying);
        pending = pending.filter((i) => !rows[i] && (!tried.has(i) || items[i]!.shortCode === null));
      }
      if (room <= 0) for (const i of pending) rows[i] = OVER_QUOTA;
      // A given code refused because another connection wrote the item's externalId meanwhile
      // (PostgreSQL): that link is the answer, as it would have been a moment later.
      for (const [i, item] of items.entries()) {
        if (rows[i] || !item.externalId) continue;
        const hit = await q.get<LinkRow>(`SELECT ${COLS} FROM short_links WHERE user_id = ? AND external_id = ?`, userId, item.externalId);
        if (hit) rows[i] = { existing: hit };
      }
      await appendEvents(q, rows.flatMap((r) => (r && r !== OVER_QUOTA && !("existing" in r) ? [linkEvent("link.created", r)] : [])));
      return rows;
    });

  /**
   * A page of the user's links in a tracker (keyset: each page an index range from the
   * cursor, never an OFFSET) and the total matching. The total is the stored count
   * (link_totals) unless a search or a status narrows the list; then it is counted.
   */
  async function page(userId: number, tracker: Tracker, query: LinkListQuery, count = true): Promise<Page<LinkRow>> {
    const pg = db.dialect === "postgres";
    const searching = query.words.length > 0;
    // SQLite: the search index drives (it finds a word's links at once, in id order, so the
    // newest-first page of a search is its first matches); PostgreSQL: its planner picks the
    // GIN index or the list's own by how many rows the words match.
    const from = searching && !pg ? `short_links_search JOIN ${L} ON ${L}.id = short_links_search.rowid` : L;
    const where = [`${L}.user_id = ?`, `${L}.tracker = ?`];
    const params: (string | number)[] = [userId, tracker];
    if (searching) {
      where.push(pg ? `${PG_SEARCH} @@ to_tsquery('simple'::regconfig, ?)` : "short_links_search MATCH ?");
      params.push(pg ? tsQuery(query.words) : ftsQuery(query.words));
    }
    if (query.status === "active") where.push(`${L}.active = 1 AND (${L}.expires_at IS NULL OR ${L}.expires_at > ?)`);
    if (query.status === "expired") where.push(`${L}.active = 1 AND ${L}.expires_at <= ?`);
    if (query.status === "inactive") where.push(`${L}.active = 0`);
    if (query.status === "active" || query.status === "expired") params.push(nowIso());
    // Each tag named narrows the list: links carrying every one of them.
    for (const tag of query.tags) {
      where.push(`EXISTS (SELECT 1 FROM link_tags lt JOIN tags t ON t.id = lt.tag_id WHERE lt.link_id = ${L}.id AND t.user_id = ? AND t.name_key = ?)`);
      params.push(userId, tagKey(tag));
    }

    const narrowed = searching || query.status !== "all" || query.tags.length > 0;
    // PostgreSQL counts in the list's order: without an ORDER BY the planner took the GIN index
    // for a word in every link and gathered all million matches before the first (190-250 ms);
    // in id order it stops at the cap as the page does (docs/decisions.md, "Search at a million links").
    const countOrder = pg ? ` ORDER BY ${L}.id DESC` : "";
    // SQLite: a search's matches checked for owner and tracker from the narrow covering index
    // (migrations/0027) rather than the table, a page read less per match; named, because
    // without statistics the planner takes the primary key. A status needs the table's columns.
    const countFrom = searching && !pg && query.status === "all" ? `short_links_search JOIN ${L} INDEXED BY short_links_owner_by_id ON ${L}.id = short_links_search.rowid` : from;
    const countNarrowed = async () => {
      const counted = await db.reads.get<{ n: number }>(`SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${countFrom} WHERE ${where.join(" AND ")}${countOrder} LIMIT ?) AS hits`, ...params, TOTAL_CAP + 1);
      const n = Number(counted!.n);
      return { total: Math.min(n, TOTAL_CAP), capped: n > TOTAL_CAP };
    };
    // An export's batches need no total (a read less per batch on the reader thread).
    const total = async () =>
      !count
        ? { total: 0, capped: false }
        : narrowed
        ? await countNarrowed()
        : {
            total: Number((await db.reads.get<{ n: number }>("SELECT links AS n FROM link_totals WHERE user_id = ? AND tracker = ?", userId, tracker))?.n ?? 0),
            capped: false,
          };
    const sort = SORTS[query.sort];
    // In the search index's own order (SQLite), ordering by its rowid lets it stream the matches.
    const keys = searching && !pg && (query.sort === "newest" || query.sort === "oldest") ? ["short_links_search.rowid"] : sort.keys(pg);
    const keyset = query.after ? [`(${keys.join(", ")}) ${sort.desc ? "<" : ">"} (${keys.map(() => "?").join(", ")})`] : [];
    const order = keys.map((k) => `${k} ${sort.desc ? "DESC" : "ASC"}`).join(", ");
    const pageRows = () =>
      db.reads.all<LinkRow>(`SELECT ${QCOLS} FROM ${from} WHERE ${[...where, ...keyset].join(" AND ")} ORDER BY ${order} LIMIT ?`, ...params, ...(query.after ?? []), query.limit + 1);
    // Click order sorts the whole list each page: refused before it would hold the thread, so the
    // total comes first. Any other order sends both reads at once: on PostgreSQL they run side by
    // side on two connections (a searched page's count and rows each read the same ~1,000 matches:
    // 20 ms in series, H-pgview); SQLite's reader thread takes them one after the other as before.
    const clickSort = query.sort === "most" || query.sort === "least";
    const [counted, rows] = clickSort ? [await total(), null] : await Promise.all([total(), pageRows()]);
    if (clickSort && (counted.capped || counted.total > CLICK_SORT_MAX)) {
      throw badRequest(CLICK_SORT_MSG, { sort: CLICK_SORT_MSG });
    }
    const got = rows ?? (await pageRows());
    const more = got.length > query.limit;
    if (more) got.pop();
    return { rows: got, more, ...counted };
  }

  /**
   * Every link of the user in a tracker, newest first, a batch at a time (keyset pages of the
   * list's own index), for the exports: memory holds one batch whatever the number of links.
   */
  async function* batches(userId: number, tracker: Tracker, size: number): AsyncGenerator<LinkRow[]> {
    for (let after: CursorKeys | null = null; ; ) {
      const { rows, more } = await page(userId, tracker, { words: [], sort: "newest", status: "all", limit: size, after, tags: [] }, false);
      if (rows.length > 0) yield rows;
      if (!more) return;
      after = SORTS.newest.of(rows[rows.length - 1]!);
    }
  }

  return {
    page,
    batches,
    list: (userId: number, tracker: Tracker) =>
      db.all<LinkRow>(`SELECT ${COLS} FROM short_links WHERE user_id = ? AND tracker = ? ORDER BY created_at DESC, id DESC`, userId, tracker),
    /** The user's own link, or the system root link when `allowSystem` (the instance owner). */
    async get(id: number, userId: number, tracker: Tracker, allowSystem = false): Promise<LinkRow | null> {
      const own = await getOwn(id, userId, tracker);
      if (own || !allowSystem) return own;
      return getSystem(id, tracker);
    },
    /** The tracker's link with this code (a code can name one link in each tracker). */
    byCode: (code: string, tracker: Tracker) => db.get<LinkRow>(`SELECT ${COLS} FROM short_links WHERE short_code = ? AND tracker = ?`, code, tracker),
    /** The user's link (either tracker) that the client named `externalId`. */
    byExternalId: (userId: number, externalId: string) =>
      db.get<LinkRow>(`SELECT ${COLS} FROM short_links WHERE user_id = ? AND external_id = ?`, userId, externalId),
    /** Whether a link other than `exceptId` has `code` in `tracker` (in either tracker while codes are shared). */
    codeTaken: async (code: string, tracker: Tracker, exceptId = 0) =>
      (await db.get("SELECT 1 AS x FROM short_links WHERE short_code = ? AND id != ? AND (tracker = ? OR ? = 1)", code, exceptId, tracker, sharedCodes ? 1 : 0)) !== null,
    /** One link; QUOTA_EXCEEDED when the owner already holds MAX_LINKS_PER_USER. */
    create: (userId: number, tracker: Tracker, f: Fields & { shortCode: string; externalId?: string | null; tagIds?: readonly number[] | undefined; smartJson?: string | null }) =>
      uniqueOr(
        () =>
          db.tx(async (q) => {
            assertRoom(await ownedLinks(q, userId, maxPerUser), maxPerUser, QUOTA_MSG.links);
            await refuseElsewhere(f.shortCode, tracker)(q);
            let row = (await q.get<LinkRow>(`${INSERT} ${ROW} RETURNING ${COLS}`, ...rowValues(userId, tracker, f.shortCode, f, nowIso())))!;
            if (f.tagIds?.length) {
              await writeLinkTags(q, userId, row.id, f.tagIds);
              row = { ...row, tags: await tagsOfLink(q, row.id) };
            }
            await appendEvents(q, [linkEvent("link.created", row)]);
            return row;
          }),
        codeConflict,
      ),
    update: (id: number, userId: number, tracker: Tracker, f: { shortCode: string; originalUrl: string; title: string; description: string; tagIds?: readonly number[] | undefined; smartJson?: string | null | undefined }) =>
      uniqueOr(
        () =>
          withEvent(
            db,
            "link.updated",
            `UPDATE short_links SET short_code = ?, original_url = ?, title = ?, description = ?, ${SMART_SET}, updated_at = ?
             WHERE id = ? AND user_id = ? AND tracker = ? AND is_system = 0 RETURNING ${COLS}`,
            [f.shortCode, f.originalUrl, f.title, f.description || null, ...smartParams(f.smartJson), nowIso(), id, userId, tracker],
            f.tagIds,
            refuseRenameElsewhere(id, f.shortCode, tracker),
          ),
        codeConflict,
      ),
    // The Link Tracker's edit: a null code keeps the link's own.
    edit: (id: number, userId: number, tracker: Tracker, f: Fields & { shortCode: string | null; tagIds?: readonly number[] | undefined; smartJson?: string | null | undefined }) =>
      uniqueOr(
        () =>
          withEvent(
            db,
            "link.updated",
            `UPDATE short_links SET short_code = COALESCE(?, short_code), original_url = ?, title = ?, description = ?, expires_at = ?, ${SMART_SET}, updated_at = ?
             WHERE id = ? AND user_id = ? AND tracker = ? AND is_system = 0 RETURNING ${COLS}`,
            [f.shortCode, f.originalUrl, f.title, f.description || null, f.expiresAt, ...smartParams(f.smartJson), nowIso(), id, userId, tracker],
            f.tagIds,
            refuseRenameElsewhere(id, f.shortCode, tracker),
          ),
        codeConflict,
      ),
    /**
     * A link's smart settings (JSON, or null for none), written with a link.updated event; a
     * row write, so the other instances' followers read the settings with it (follow.ts).
     */
    setSmart: (id: number, userId: number, tracker: Tracker, smart: string | null) =>
      withEvent(
        db,
        "link.updated",
        `UPDATE short_links SET smart = ?, updated_at = ? WHERE id = ? AND user_id = ? AND tracker = ? AND is_system = 0 RETURNING ${COLS}`,
        [smart, nowIso(), id, userId, tracker],
      ),
    /** PostgreSQL only: limited links' click counts now, with every instance's clicks (service.ts). */
    clickCounts: (ids: number[]) =>
      db.all<{ link_id: number; clicks: number }>(
        "SELECT link_id, clicks FROM link_click_counts WHERE link_id = ANY(string_to_array(?, ',')::bigint[])",
        ids.join(","),
      ),
    delete: (id: number, userId: number, tracker: Tracker) =>
      db.tx(async (q) => {
        const gone = await q.get<{ id: number; short_code: string }>(
          "DELETE FROM short_links WHERE id = ? AND user_id = ? AND tracker = ? AND is_system = 0 RETURNING id, short_code",
          id, userId, tracker,
        );
        if (gone) await appendEvents(q, [{ type: "link.deleted", userId, linkId: gone.id, data: { id: gone.id, shortCode: gone.short_code, tracker } }]);
        return gone;
      }),
    /**
     * Clears the link's clicks (the analytics store's part) and marks the link changed, in one
     * transaction. `clicks_reset` counts the resets: the other instances' followers read it with
     * the row and start a click limit's count again from the database's (follow.ts).
     */
    resetClicks: (id: number) =>
      db.tx(async (q: Queries) => {
        await clearLinkClicks(q, id);
        await q.run("UPDATE short_links SET updated_at = ?, clicks_reset = clicks_reset + 1 WHERE id = ?", nowIso(), id);
      }),
    /**
     * The links a batch of another instance's notifications names, as they are now
     * (PostgreSQL only: src/links/follow.ts). The ids travel as one text value, so a batch of
     * 1,000 is one parameter rather than 1,000.
     */
    forRedirectByIds: (ids: number[]) =>
      db.all<RedirectRow>(
        `SELECT ${redirectCols("")} FROM short_links WHERE id = ANY(string_to_array(?, ',')::bigint[])`,
        ids.join(","),
      ),
    /**
     * The links for the redirect with this code, one per tracker at most: a code the instance's
     * map does not know yet (src/links/missLookup.ts, several instances). The code's index.
     */
    forRedirectByCode: (code: string) => db.all<RedirectRow>(`SELECT ${redirectCols("")} FROM short_links WHERE short_code = ?`, code),
    /**
     * PostgreSQL only (src/links/follow.ts): NOTIFYs `payload` on `channel` and returns the
     * snapshot's xmin and the database's clock (ms). One statement: every transaction whose id
     * is below that xmin had committed (or rolled back) before it, so its notifications reach a
     * listener before this one does (PostgreSQL delivers them in commit order).
     */
    pulse: async (channel: string, payload: string) =>
      (await db.get<{ xmin: string; at: number }>(
        `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin, floor(extract(epoch FROM clock_timestamp()) * 1000)::float8 AS at
         FROM (SELECT pg_notify(?, ?)) AS sent`,
        channel, payload,
      ))!,
    /**
     * PostgreSQL only (follow.ts): every link written by a transaction whose id is at or past
     * `xmin` (migrations/pg/0014), as it is now (null fields: deleted), with the code the write
     * found; and this statement's own xmin and clock, from which the next catch-up reads. One
     * statement, one snapshot; a row even when nothing changed (the LEFT JOINs), for the xmin.
     */
    changesSince: (xmin: string) =>
      db.all<{ xmin: string; at: number; change_id: number | null; change_code: string | null } & { [K in keyof RedirectRow]: RedirectRow[K] | null }>(
        `WITH s AS (SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin, floor(extract(epoch FROM clock_timestamp()) * 1000)::float8 AS at)
         SELECT s.xmin, s.at, c.link_id AS change_id, c.code AS change_code, ${redirectCols("l.")}
         FROM s LEFT JOIN (SELECT DISTINCT link_id, code FROM link_changes WHERE xid >= ?::xid8) AS c ON true
         LEFT JOIN short_links AS l ON l.id = c.link_id`,
        xmin,
      ),
    /**
     * PostgreSQL only: the change log keeps a day (follow.ts reads it all again past half that).
     * Every instance runs it now and then, with no lock: one DELETE, a second finds nothing.
     */
    pruneChanges: (keepHours: number) => db.run("DELETE FROM link_changes WHERE at < now() - make_interval(hours => ?)", keepHours),
    /**
     * About how many links there are, and the highest id: the redirect map's room is made at
     * once, and its load splits the ids at a point of the highest. On PostgreSQL the count is the
     * planner's estimate (an exact COUNT(*) took 150 ms of a million links' start-up, before
     * anything else could begin). An estimate under half the highest id (never analysed: -1;
     * analysed before a large import) gives way to the highest id: room given back after the
     * load costs less than growing the map on the way.
     */
    /**
     * PostgreSQL only (mapSnapshot.ts): which database this is, so a snapshot of another one is
     * never used: the cluster's system identifier, its timeline (a new one after a point-in-time
     * recovery or a promotion) and the database's oid (a restore into a new database). Null where
     * the server does not let the app read them (the snapshot is then not used).
     */
    mapIdentity: async () => {
      try {
        const r = await db.get<{ id: string }>(
          `SELECT (SELECT system_identifier::text FROM pg_control_system()) || '/' || (SELECT timeline_id::text FROM pg_control_checkpoint())
             || '/' || (SELECT oid::text FROM pg_database WHERE datname = current_database()) AS id`,
        );
        return r?.id ?? null;
      } catch {
        return null;
      }
    },
    redirectSpan: async () => {
      const estimate = db.dialect === "postgres";
      const r = await db.get<{ n: number | null; top: number | null }>(
        estimate
          ? "SELECT (SELECT reltuples FROM pg_class WHERE oid = 'short_links'::regclass) AS n, MAX(id) AS top FROM short_links"
          : "SELECT COUNT(*) AS n, MAX(id) AS top FROM short_links",
      );
      const maxId = Number(r?.top ?? 0);
      const n = Number(r?.n ?? -1);
      return { count: !estimate ? n : n >= maxId / 2 ? Math.min(Math.ceil(n), maxId) : maxId, maxId };
    },
    /**
     * Every link with an id above `after` and up to `upTo`, a page at a time by id (keyset: each
     * page an index range, never an OFFSET): no 100,000-row array is held at once while the
     * redirect map loads, and the same statement serves both backends (on PostgreSQL no cursor,
     * which would need a transaction open for the whole load). Pages, not rows: an async
     * generator's yield per row cost ~0.5 s of a million links' load. Plain links only, and only
     * the columns they need (smartForRedirect reads the others).
     */
    async *allForRedirect({ after: from = 0, upTo = Number.MAX_SAFE_INTEGER }: { after?: number; upTo?: number } = {}): AsyncGenerator<PlainRedirectRow[]> {
      for (let after = from; ; ) {
        const page = await db.all<PlainRedirectRow>(
          `SELECT ${PLAIN_REDIRECT_COLS} FROM short_links WHERE id > ? AND id <= ? AND smart IS NULL ORDER BY id LIMIT ?`,
          after, upTo, REDIRECT_PAGE,
        );
        yield page;
        if (page.length < REDIRECT_PAGE) return;
        after = page[page.length - 1]!.id;
      }
    },
    /**
     * Every smart link, with its settings and its limit's counts, after the plain ones: the
     * partial index of migration 0029 finds these few rows. Kept out of allForRedirect's pages,
     * whose three extra columns (the click count a subquery) cost PostgreSQL ~0.5 s more of a
     * million links' read than the plain columns do (docs/performance.md, lead session 11).
     */
    smartForRedirect: () => db.all<RedirectRow>(`SELECT ${redirectCols("")} FROM short_links WHERE smart IS NOT NULL`),
    syncRootUrl: async (url: string) =>
      (await db.run("UPDATE short_links SET original_url = ?1 WHERE short_code = 'root' AND is_system = 1 AND original_url != ?1", url)) > 0,
    root: () => db.get<LinkRow>(`SELECT ${COLS} FROM short_links WHERE short_code = 'root' AND is_system = 1`),
    createMany,
    /** MAX_LINKS_PER_USER, for the messages of items refused by it. */
    maxPerUser,
  };
}
