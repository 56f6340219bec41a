// The only SQL of smart links besides the link row itself (links/store.ts setSmart): password
// page views and unlocks, the shared cookie secret, and the users' UTM templates.
import type { Database, Queries } from "../db/database";
import { uniqueOr } from "../db/constraints";
import { conflict } from "../shared/errors";
import { nowIso } from "../shared/time";
import { QUOTA_MSG, assertRoom } from "../plans/quotas";
import type { UtmFields } from "./schema";

export type GateCount = { linkId: number; day: string; views: number; unlocks: number };

export type UtmTemplateRow = {
  id: number;
  user_id: number;
  name: string;
  source: string;
  medium: string;
  campaign: string;
  term: string;
  content: string;
  created_at: string;
};

export const UTM_NAME_TAKEN = "You already have a template with that name";

async function ownedTemplates(q: Queries, userId: number, cap: number) {
  if (cap <= 0) return 0;
  // As links/store.ts ownedLinks: PostgreSQL counts one create after the other per user.
  if (q.dialect === "postgres") await q.get("SELECT 1 AS x FROM users WHERE id = ? FOR NO KEY UPDATE", userId);
  return (await q.get<{ n: number }>("SELECT COUNT(*) AS n FROM utm_templates WHERE user_id = ?", userId))!.n;
}

export function smartStore(db: Database, { maxTemplates = 0 }: { maxTemplates?: number } = {}) {
  return {
    /** Adds a batch of password page views and unlocks (gate.ts gathers them in memory). */
    addGateCounts: (counts: GateCount[]) =>
      counts.length === 0
        ? Promise.resolve()
        : db.tx(async (q) => {
            for (const c of counts) {
              // A link deleted meanwhile has no row to count on: its counts are dropped.
              await q.run(
                `INSERT INTO link_gate_counts (link_id, day, views, unlocks) SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM short_links WHERE id = ?1)
                 ON CONFLICT (link_id, day) DO UPDATE SET views = link_gate_counts.views + excluded.views, unlocks = link_gate_counts.unlocks + excluded.unlocks`,
                c.linkId, c.day, c.views, c.unlocks,
              );
            }
          }),
    /** A link's password page views and unlocks, in total. */
    gateTotals: async (linkId: number) => {
      const r = await db.get<{ views: number | null; unlocks: number | null }>("SELECT SUM(views) AS views, SUM(unlocks) AS unlocks FROM link_gate_counts WHERE link_id = ?", linkId);
      return { views: Number(r?.views ?? 0), unlocks: Number(r?.unlocks ?? 0) };
    },
    /** The secret `name`, made now by `make` if no instance made it before (the first writer wins). */
    async instanceSecret(name: string, make: () => string) {
      await db.run("INSERT INTO instance_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", name, make());
      return (await db.get<{ value: string }>("SELECT value FROM instance_secrets WHERE name = ?", name))!.value;
    },
    templates: (userId: number) =>
      db.all<UtmTemplateRow>("SELECT * FROM utm_templates WHERE user_id = ? ORDER BY name, id", userId),
    /** QUOTA_EXCEEDED past MAX_UTM_TEMPLATES_PER_USER; CONFLICT on a name the user already has. */
    createTemplate: (userId: number, t: UtmFields & { name: string }) =>
      uniqueOr(
        () =>
          db.tx(async (q) => {
            assertRoom(await ownedTemplates(q, userId, maxTemplates), maxTemplates, QUOTA_MSG.utmTemplates);
            return (await q.get<UtmTemplateRow>(
              "INSERT INTO utm_templates (user_id, name, source, medium, campaign, term, content, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
              userId, t.name, t.source, t.medium, t.campaign, t.term, t.content, nowIso(),
            ))!;
          }),
        () => conflict(UTM_NAME_TAKEN, { name: UTM_NAME_TAKEN }),
      ),
    /** Renames template `id` and replaces its values; null when the user has no such template, CONFLICT on a name they already have. */
    updateTemplate: (id: number, userId: number, t: UtmFields & { name: string }) =>
      uniqueOr(
        () =>
          db.get<UtmTemplateRow>(
            "UPDATE utm_templates SET name = ?, source = ?, medium = ?, campaign = ?, term = ?, content = ? WHERE id = ? AND user_id = ? RETURNING *",
            t.name, t.source, t.medium, t.campaign, t.term, t.content, id, userId,
          ),
        () => conflict(UTM_NAME_TAKEN, { name: UTM_NAME_TAKEN }),
      ),
    deleteTemplate: async (id: number, userId: number) => (await db.run("DELETE FROM utm_templates WHERE id = ? AND user_id = ?", id, userId)) > 0,
  };
}
