// The only SQL for titles (message versions). Every statement is scoped by topic_id, and the
// routes only pass a topic the caller may see, so another topic's title is simply not found.
import type { Db } from "../db/open";
import { uniqueOrSync as uniqueOr } from "../db/legacy";
import { conflict, forbidden } from "../http/errors";
import { nowIso } from "../shared/time";
import { titleSlug, type CreateTitleInput, type Title, type UpdateTitleInput } from "./schema";

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

export function titlesStore(db: Db) {
  const select = `SELECT t.*, u.username AS created_by_username FROM titles t LEFT JOIN users u ON u.id = t.created_by`;
  const q = {
    list: db.prepare(`${select} WHERE t.topic_id = ? ORDER BY t.created_at DESC, t.id DESC`),
    one: db.prepare(`${select} WHERE t.topic_id = $topicId AND t.id = $id`),
    names: db.prepare(`SELECT DISTINCT name FROM titles WHERE topic_id = ?`),
    seriesSize: db.prepare(`SELECT COUNT(*) AS n FROM titles WHERE topic_id = $topicId AND name = $name`),
    latest: db.prepare(`SELECT * FROM titles WHERE topic_id = $topicId AND name = $name ORDER BY version DESC LIMIT 1`),
    insert: db.prepare(
      `INSERT INTO titles (topic_id, created_by, name, original_name, display_name, key_phrase, version, notes, sort_order, created_at, updated_at)
       VALUES ($topicId, $userId, $name, $originalName, $displayName, $keyPhrase, $version, $notes, $order, $now, $now)
       RETURNING id`,
    ),
    renameSeries: db.prepare(`UPDATE titles SET name = $name, updated_at = $now WHERE topic_id = $topicId AND name = $old`),
    update: db.prepare(
      `UPDATE titles SET
         name = $name,
         display_name = CASE WHEN $setDisplay THEN $displayName ELSE display_name END,
         key_phrase = CASE WHEN $setKey THEN $keyPhrase ELSE key_phrase END,
         notes = CASE WHEN $setNotes THEN $notes ELSE notes END,
         sort_order = CASE WHEN $setOrder THEN $order ELSE sort_order END,
         updated_at = $now
       WHERE topic_id = $topicId AND id = $id`,
    ),
    deleteOne: db.prepare(`DELETE FROM titles WHERE topic_id = $topicId AND id = $id`),
    deleteSeries: db.prepare(`DELETE FROM titles WHERE topic_id = $topicId AND name = $name`),
    // Rights (PRODUCT.md): members add titles and messages; they change only versions they
    // created themselves, and the topic's owner changes any.
    editable: db.prepare(`${select} WHERE t.topic_id = $topicId AND t.id = $id AND ($isOwner = 1 OR t.created_by = $userId)`),
    othersInSeries: db.prepare(`SELECT 1 FROM titles WHERE topic_id = $topicId AND name = $name AND created_by IS NOT $userId LIMIT 1`),
    // title_slugs (migration 0006): the old slugs of each series, keyed by its current name.
    formerAll: db.prepare(`SELECT slug, name FROM title_slugs WHERE topic_id = ?`),
    former: db.prepare(`SELECT slug FROM title_slugs WHERE topic_id = $topicId AND name = $name`),
    repoint: db.prepare(`UPDATE title_slugs SET name = $name WHERE topic_id = $topicId AND name = $old`),
    rememberSlug: db.prepare(
      `INSERT INTO title_slugs (topic_id, slug, name) VALUES ($topicId, $slug, $name)
       ON CONFLICT (topic_id, slug) DO UPDATE SET name = excluded.name`,
    ),
    forgetSeries: db.prepare(`DELETE FROM title_slugs WHERE topic_id = $topicId AND name = $name`),
  };

  const one = (topicId: number, id: number) => q.one.get({ topicId, id }) as TitleRow | null;
  const editable = (topicId: number, id: number, e: Editor) =>
    q.editable.get({ topicId, id, isOwner: e.isOwner ? 1 : 0, userId: e.userId }) as TitleRow | null;
  const former = (topicId: number, name: string) => (q.former.all({ topicId, name }) as { slug: string }[]).map((r) => r.slug);
  const shaped = (r: TitleRow) => toTitle(r, former(r.topic_id, r.name));

  /**
   * Once no version is left under `old`, its series lives on as `name`: its slug and every
   * slug it had before now lead to `name`, so links copied before the rename still open it.
   */
  function renamed(topicId: number, old: string, name: string) {
    if (count(topicId, old) > 0) return;
    q.repoint.run({ topicId, old, name });
    q.rememberSlug.run({ topicId, slug: titleSlug(old), name });
  }

  /**
   * Two series with different names but one slug would share their pages
   * (/{user}/{topic}/{slug}), so a change is refused when afterwards two distinct names in
   * the topic would have the same slug. `leaving` is a name that no longer exists afterwards.
   */
  function slugClash(topicId: number, name: string, leaving: string | null) {
    const slug = titleSlug(name);
    return (q.names.all(topicId) as { name: string }[]).some((r) => r.name !== name && r.name !== leaving && titleSlug(r.name) === slug);
  }
  const count = (topicId: number, name: string) => (q.seriesSize.get({ topicId, name }) as { n: number }).n;

  return {
    list(topicId: number) {
      const past = new Map<string, string[]>();
      for (const r of q.formerAll.all(topicId) as { slug: string; name: string }[]) past.set(r.name, [...(past.get(r.name) ?? []), r.slug]);
      return (q.list.all(topicId) as TitleRow[]).map((r) => toTitle(r, past.get(r.name)));
    },

    get(topicId: number, id: number) {
      const r = one(topicId, id);
      return r ? shaped(r) : null;
    },

    /**
     * Adds a version to the series `name` (a new series starts at 1). The read of the highest
     * version and the insert run in one IMMEDIATE transaction, which holds the database's
     * write lock from the start, so concurrent calls (even from other processes) each get
     * their own number; UNIQUE(topic_id, name, version) is the last line of defence.
     */
    create(topicId: number, userId: number, input: CreateTitleInput) {
      const tx = db.transaction(() => {
        const latest = q.latest.get({ topicId, name: input.name }) as TitleRow | null;
        if (input.version === 1 && latest) throw conflict(NAME_TAKEN, { name: NAME_TAKEN });
        if (!latest && slugClash(topicId, input.name, null)) throw conflict(NAME_TAKEN, { name: NAME_TAKEN });
        const row = q.insert.get({
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
        }) as { id: number };
        return row.id;
      });
      const id = tx.immediate();
      return shaped(one(topicId, id)!);
    },

    /**
     * Applies a change to one version; with `allVersions` a new name renames every version of
     * the series (the other fields still apply to this version only). Null when not found or
     * not the editor's to change; a member renames a whole series only when every version is theirs.
     */
    update(topicId: number, id: number, patch: UpdateTitleInput, allVersions: boolean, editor: Editor) {
      const tx = db.transaction(() => {
        const row = editable(topicId, id, editor);
        if (!row) return null;
        const name = patch.name ?? row.name;
        if (name !== row.name) {
          if (allVersions) {
            if (!editor.isOwner && q.othersInSeries.get({ topicId, name: row.name, userId: editor.userId })) throw forbidden(NOT_YOURS);
            // Merging two whole series would mix their version numbers: refuse it.
            if (count(topicId, name) > 0 || slugClash(topicId, name, row.name)) throw conflict(NAME_TAKEN, { name: NAME_TAKEN });
            q.renameSeries.run({ topicId, name, old: row.name, now: nowIso() });
          } else if (slugClash(topicId, name, count(topicId, row.name) === 1 ? row.name : null)) {
            throw conflict(NAME_TAKEN, { name: NAME_TAKEN });
          }
        }
        // Moving one version into a series that already has its number.
        const versionTaken = () => {
          const msg = `Message ${row.version} already exists in the title '${name}'`;
          return conflict(msg, { name: msg });
        };
        uniqueOr(
          () =>
            q.update.run({
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
            }),
          versionTaken,
        );
        if (name !== row.name) renamed(topicId, row.name, name);
        return shaped(one(topicId, id)!);
      });
      return tx.immediate();
    },

    /** Deletes one version, or with `allVersions` its whole series. False when not found. */
    remove(topicId: number, id: number, allVersions: boolean) {
      const tx = db.transaction(() => {
        const row = one(topicId, id);
        if (!row) return false;
        if (allVersions) q.deleteSeries.run({ topicId, name: row.name });
        else q.deleteOne.run({ topicId, id });
        // A deleted series' old slugs must not lead to a later title that takes its name.
        if (count(topicId, row.name) === 0) q.forgetSeries.run({ topicId, name: row.name });
        return true;
      });
      return tx.immediate();
    },
  };
}
