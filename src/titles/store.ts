// The only SQL for titles (message versions). Every statement is scoped by topic_id, and the
// routes only pass a topic the caller may see, so another topic's title is simply not found.
import type { Database, Queries } from "../db/database";
import { uniqueOr } from "../db/constraints";
import { conflict, forbidden } from "../shared/errors";
import { nowIso } from "../shared/time";
import { NO_QUOTAS, QUOTA_MSG, assertRoom, quotaExceeded, type Quotas } from "../plans/quotas";
import { titleSlug, type CreateTitleInput, type Title, type TitleSort, type UpdateTitleInput } from "./schema";
import type { CursorKeys, Page } from "../http/paging";

/** Each sort of a topic's titles: its keyset columns (one direction), key kinds and a row's keys. */
const TITLE_SORTS: Record<TitleSort, { keys: (pg: boolean) => string[]; desc: boolean; kinds: ("string" | "int")[]; of: (r: TitleRow) => CursorKeys }> = {
  newest: { keys: () => ["t.created_at", "t.id"], desc: true, kinds: ["string", "int"], of: (r) => [r.created_at, r.id] },
  oldest: { keys: () => ["t.created_at", "t.id"], desc: false, kinds: ["string", "int"], of: (r) => [r.created_at, r.id] },
  // Byte order on both backends, as the links' title sort.
  name: { keys: (pg) => [pg ? 't.name COLLATE "C"' : "t.name", "t.version", "t.id"], desc: false, kinds: ["string", "int", "int"], of: (r) => [r.name, r.version, r.id] },
};
export const titleSortKinds = (sort: TitleSort) => TITLE_SORTS[sort].kinds;

/** A LIKE pattern matching `text` anywhere, its wildcards taken literally (ESCAPE '\\'). */
const contains = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
import { appendEvents } from "../events/store";
import type { NewEvent } from "../events/schema";

type TitleRow = {
  id: number;
  topic_id: number;
  created_by: number | null;
  created_by_username: string | null;
  name: string;
  original_name: string;
  display_name: string | null;
  key_phrase: string | null;
  version: number;
  notes: string;
  sort_order: number;
  created_at: string;
  updated_at: string;
};

const toTitle = (r: TitleRow, formerSlugs: string[] = []): Title => ({
  id: r.id,
  topicId: r.topic_id,
  name: r.name,
  originalName: r.original_name,
  displayName: r.display_name,
  keyPhrase: r.key_phrase,
  version: r.version,
  notes: r.notes,
  order: r.sort_order,
  slug: titleSlug(r.name),
  formerSlugs: formerSlugs.filter((s) => s !== titleSlug(r.name)),
  createdBy: r.created_by,
  createdByUsername: r.created_by_username,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const NAME_TAKEN = "A title with that name already exists in this topic";
export const NOT_YOURS = "Only the topic's owner can change titles and messages other people added";

/** Who is changing a title: the topic's owner may change any, a member only their own. */
export type Editor = { userId: number; isOwner: boolean };

const SELECT = `SELECT t.*, u.username AS created_by_username FROM titles t LEFT JOIN users u ON u.id = t.created_by`;

/**
 * Every write to a topic's titles runs one at a time: the next version number is the highest
 * + 1, read in the same transaction as the insert. SQLite's BEGIN IMMEDIATE already holds the
 * database's write lock from the start (other processes included). On PostgreSQL two
 * instances would both read the same highest version, so the topic's row is locked first (NO
 * KEY: the titles' own foreign key to it does not wait on it); the second writer then reads
 * the first one's committed version. UNIQUE(topic_id, name, version) stays the last line of defence.
 */
async function lockTopic(q: Queries, topicId: number) {
  if (q.dialect === "postgres") await q.get(`SELECT 1 AS x FROM topics WHERE id = ? FOR NO KEY UPDATE`, topicId);
}

const one = (q: Queries, topicId: number, id: number) => q.get<TitleRow>(`${SELECT} WHERE t.topic_id = $topicId AND t.id = $id`, { topicId, id });
// title_slugs (migration 0006): the old slugs of each series, keyed by its current name.
const former = async (q: Queries, topicId: number, name: string) =>
  (await q.all<{ slug: string }>(`SELECT slug FROM title_slugs WHERE topic_id = $topicId AND name = $name`, { topicId, name })).map((r) => r.slug);
const shaped = async (q: Queries, r: TitleRow) => toTitle(r, await former(q, r.topic_id, r.name));
const count = async (q: Queries, topicId: number, name: string) =>
  (await q.get<{ n: number }>(`SELECT COUNT(*) AS n FROM titles WHERE topic_id = $topicId AND name = $name`, { topicId, name }))!.n;

/**
 * Two series with different names but one slug would share their pages
 * (/{user}/{topic}/{slug}), so a change is refused when afterwards two distinct names in
 * the topic would have the same slug. `leaving` is a name that no longer exists afterwards.
 */
async function slugClash(q: Queries, topicId: number, name: string, leaving: string | null) {
  const slug = titleSlug(name);
  const names = await q.all<{ name: string }>(`SELECT DISTINCT name FROM titles WHERE topic_id = ?`, topicId);
  return names.some((r) => r.name !== name && r.name !== leaving && titleSlug(r.name) === slug);
}

/**
 * Once no version is left under `old`, its series lives on as `name`: its slug and every
 * slug it had before now lead to `name`, so links copied before the rename still open it.
 */
async function renamed(q: Queries, topicId: number, old: string, name: string) {
  if ((await count(q, topicId, old)) > 0) return;
  await q.run(`UPDATE title_slugs SET name = $name WHERE topic_id = $topicId AND name = $old`, { topicId, old, name });
  await q.run(
    `INSERT INTO title_slugs (topic_id, slug, name) VALUES ($topicId, $slug, $name)
     ON CONFLICT (topic_id, slug) DO UPDATE SET name = excluded.name`,
    { topicId, slug: titleSlug(old), name },
  );
}

/**
 * The bytes of text the topic's titles hold (names, display names, key phrases, notes), as
 * MAX_TOPIC_TEXT_BYTES counts them; octet_length reads the same on both backends. Read only
 * when there is a cap: it visits every title of the topic (at most MAX_TITLES_PER_TOPIC).
 */
const textBytes = async (q: Queries, topicId: number) =>
  (await q.get<{ n: number | null }>(
    `SELECT SUM(octet_length(name) + octet_length(COALESCE(original_name, '')) + octet_length(COALESCE(display_name, ''))
              + octet_length(COALESCE(key_phrase, '')) + octet_length(COALESCE(notes, ''))) AS n
     FROM titles WHERE topic_id = ?`,
    topicId,
  ))!.n ?? 0;

/** `quotas`: MAX_TITLES_PER_TOPIC and MAX_TOPIC_TEXT_BYTES (0: no cap). */
export function titlesStore(db: Database, quotas: Pick<Quotas, "titlesPerTopic" | "topicTextBytes"> = NO_QUOTAS) {
  /**
   * After a write inside the topic's locked transaction: refused (and so rolled back) when the
   * topic's text now passes its cap and the write added to it (an edit that shortens is let
   * through even over a lowered cap).
   */
  const checkText = async (q: Queries, topicId: number, before: number) => {
    if (quotas.topicTextBytes <= 0) return;
    const after = await textBytes(q, topicId);
    if (after > quotas.topicTextBytes && after > before) throw quotaExceeded(QUOTA_MSG.text(quotas.topicTextBytes));
  };
  const textBefore = (q: Queries, topicId: number) => (quotas.topicTextBytes > 0 ? textBytes(q, topicId) : Promise.resolve(0));

  return {
    /**
     * A page of a topic's titles (keyset on the sort's columns, never an OFFSET) and how many
     * match. A topic holds thousands of titles at most (its quota), so the name search is a
     * LIKE over the topic's own rows rather than an index of its own.
     */
    async page(topicId: number, q: { search: string; name: string | null; sort: TitleSort; limit: number; after: CursorKeys | null }): Promise<Page<Title & { cursor: CursorKeys }>> {
      const pg = db.dialect === "postgres";
      const where = ["t.topic_id = ?"];
      const params: (string | number)[] = [topicId];
      if (q.search) {
        where.push("lower(t.name) LIKE ? ESCAPE '\\'");
        params.push(contains(q.search));
      }
      if (q.name !== null) {
        where.push("t.name = ?");
        params.push(q.name);
      }
      const sort = TITLE_SORTS[q.sort];
      const keys = sort.keys(pg);
      const keyset = q.after ? [`(${keys.join(", ")}) ${sort.desc ? "<" : ">"} (${keys.map(() => "?").join(", ")})`] : [];
      const rows = await db.all<TitleRow>(
        `${SELECT} WHERE ${[...where, ...keyset].join(" AND ")} ORDER BY ${keys.map((k) => `${k} ${sort.desc ? "DESC" : "ASC"}`).join(", ")} LIMIT ?`,
        ...params, ...(q.after ?? []), q.limit + 1,
      );
      const more = rows.length > q.limit;
      if (more) rows.pop();
      const total = (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM titles t WHERE ${where.join(" AND ")}`, ...params))!.n;
      const past = new Map<string, string[]>();
      for (const r of await db.all<{ slug: string; name: string }>(`SELECT slug, name FROM title_slugs WHERE topic_id = ?`, topicId)) {
        past.set(r.name, [...(past.get(r.name) ?? []), r.slug]);
      }
      return { rows: rows.map((r) => ({ ...toTitle(r, past.get(r.name)), cursor: sort.of(r) })), more, total: Number(total) };
    },

    async get(topicId: number, id: number) {
      const r = await one(db, topicId, id);
      return r ? shaped(db, r) : null;
    },

    /** Adds a version to the series `name` (a new series starts at 1): highest + 1, see lockTopic. */
    /** `announce`: the title.added event for the new version, appended in the same transaction. */
    create(topicId: number, userId: number, input: CreateTitleInput, announce?: (title: Title) => NewEvent) {
      return db.tx(async (q) => {
        await lockTopic(q, topicId);
        const latest = await q.get<TitleRow>(`SELECT * FROM titles WHERE topic_id = $topicId AND name = $name ORDER BY version DESC LIMIT 1`, {
          topicId,
          name: input.name,
        });
        if (input.version === 1 && latest) throw conflict(NAME_TAKEN, { name: NAME_TAKEN });
        if (!latest && (await slugClash(q, topicId, input.name, null))) throw conflict(NAME_TAKEN, { name: NAME_TAKEN });
        if (quotas.titlesPerTopic > 0) {
          assertRoom((await q.get<{ n: number }>(`SELECT COUNT(*) AS n FROM titles WHERE topic_id = ?`, topicId))!.n, quotas.titlesPerTopic, QUOTA_MSG.titles);
        }
        const before = await textBefore(q, topicId);
        const row = (await q.get<TitleRow>(
          `INSERT INTO titles (topic_id, created_by, name, original_name, display_name, key_phrase, version, notes, sort_order, created_at, updated_at)
           VALUES ($topicId, $userId, $name, $originalName, $displayName, $keyPhrase, $version, $notes, $order, $now, $now)
           RETURNING id`,
          {
            topicId,
            userId,
            name: input.name,
            originalName: input.originalName?.trim() || latest?.original_name || input.name,
            displayName: input.displayName || null,
            keyPhrase: input.keyPhrase ?? null,
            version: (latest?.version ?? 0) + 1,
            // Spec §4 'New message': the notes carry over unless the caller sends its own.
            notes: input.notes ?? latest?.notes ?? "",
            order: latest?.sort_order ?? 0,
            now: nowIso(),
          },
        ))!;
        await checkText(q, topicId, before);
        const title = await shaped(q, (await one(q, topicId, row.id))!);
        if (announce) await appendEvents(q, [announce(title)]);
        return title;
      });
    },

    /**
     * Applies a change to one version; with `allVersions` a new name renames every version of
     * the series (the other fields still apply to this version only). Null when not found or
     * not the editor's to change; a member renames a whole series only when every version is theirs.
     */
    update(topicId: number, id: number, patch: UpdateTitleInput, allVersions: boolean, editor: Editor) {
      return db.tx(async (q) => {
        await lockTopic(q, topicId);
        // Rights (PRODUCT.md): members add titles and messages; they change only versions they
        // created themselves, and the topic's owner changes any.
        const row = await q.get<TitleRow>(`${SELECT} WHERE t.topic_id = $topicId AND t.id = $id AND ($isOwner = 1 OR t.created_by = $userId)`, {
          topicId,
          id,
          isOwner: editor.isOwner ? 1 : 0,
          userId: editor.userId,
        });
        if (!row) return null;
        const before = await textBefore(q, topicId);
        const name = patch.name ?? row.name;
        if (name !== row.name) {
          if (allVersions) {
            const others = await q.get(`SELECT 1 AS x FROM titles WHERE topic_id = $topicId AND name = $name AND created_by IS DISTINCT FROM $userId LIMIT 1`, {
              topicId,
              name: row.name,
              userId: editor.userId,
            });
            if (!editor.isOwner && others) throw forbidden(NOT_YOURS);
            // Merging two whole series would mix their version numbers: refuse it.
            if ((await count(q, topicId, name)) > 0 || (await slugClash(q, topicId, name, row.name))) throw conflict(NAME_TAKEN, { name: NAME_TAKEN });
            await q.run(`UPDATE titles SET name = $name, updated_at = $now WHERE topic_id = $topicId AND name = $old`, { topicId, name, old: row.name, now: nowIso() });
          } else if (await slugClash(q, topicId, name, (await count(q, topicId, row.name)) === 1 ? row.name : null)) {
            throw conflict(NAME_TAKEN, { name: NAME_TAKEN });
          }
        }
        // Moving one version into a series that already has its number.
        const versionTaken = () => {
          const msg = `Message ${row.version} already exists in the title '${name}'`;
          return conflict(msg, { name: msg });
        };
        await uniqueOr(
          () =>
            q.run(
              `UPDATE titles SET
                 name = $name,
                 display_name = CASE WHEN $setDisplay = 1 THEN $displayName ELSE display_name END,
                 key_phrase = CASE WHEN $setKey = 1 THEN $keyPhrase ELSE key_phrase END,
                 notes = CASE WHEN $setNotes = 1 THEN $notes ELSE notes END,
                 sort_order = CASE WHEN $setOrder = 1 THEN $order ELSE sort_order END,
                 updated_at = $now
               WHERE topic_id = $topicId AND id = $id`,
              {
                topicId,
                id,
                name,
                setDisplay: patch.displayName !== undefined ? 1 : 0,
                displayName: patch.displayName || null,
                setKey: patch.keyPhrase !== undefined ? 1 : 0,
                keyPhrase: patch.keyPhrase ?? null,
                setNotes: patch.notes !== undefined ? 1 : 0,
                notes: patch.notes ?? "",
                setOrder: patch.order !== undefined ? 1 : 0,
                order: patch.order ?? 0,
                now: nowIso(),
              },
            ),
          versionTaken,
        );
        if (name !== row.name) await renamed(q, topicId, row.name, name);
        await checkText(q, topicId, before);
        return shaped(q, (await one(q, topicId, id))!);
      });
    },

    /** Deletes one version, or with `allVersions` its whole series. False when not found. */
    remove(topicId: number, id: number, allVersions: boolean) {
      return db.tx(async (q) => {
        await lockTopic(q, topicId);
        const row = await one(q, topicId, id);
        if (!row) return false;
        if (allVersions) await q.run(`DELETE FROM titles WHERE topic_id = $topicId AND name = $name`, { topicId, name: row.name });
        else await q.run(`DELETE FROM titles WHERE topic_id = $topicId AND id = $id`, { topicId, id });
        // A deleted series' old slugs must not lead to a later title that takes its name.
        if ((await count(q, topicId, row.name)) === 0) await q.run(`DELETE FROM title_slugs WHERE topic_id = $topicId AND name = $name`, { topicId, name: row.name });
        return true;
      });
    },
  };
}
