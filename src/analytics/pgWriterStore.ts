// The PostgreSQL click writer's statements (the SQLite writer's are writerStore.ts): one batch of
// clicks in one transaction on the click worker's own connection (src/analytics/pgWriter.ts).
// Several instances write to one database, each its own batches. What keeps them exact:
//
// - Writers take turns: each transaction first locks the fold mark's row (click_fold, which a
//   reset locks too), so ids (above MAX(id)) are given and committed in one order across
//   instances; without it two writers would pick the same ids and one would fail. A roll-up
//   (store.ts) then finds a link's new clicks as exactly those above its mark, and a visit number
//   counts every earlier click of that visitor on that link, whichever instance recorded it.
//   A transaction holds the lock for a few ms per thousand clicks, once per 200 ms per instance.
// - Counts move with `UPDATE … RETURNING` (row locks; exact even without the turn-taking), and
//   the batch's clicks.recorded events (src/events) carry the totals it returns, from which the
//   milestone crossings are notified, each once.
// - Rows go in with COPY (text format): about 30 % less server CPU a click than a multi-row
//   INSERT from JSON (docs/performance.md).
// - No fold: link_analytics keeps its (link_id, id) index here (migrations/pg/0011).
import type { SQL } from "bun";
import { pgQueries } from "../db/database";
import { appendClickEvents } from "../events/store";
import { type BackfillRow, backfillClick, BACKFILL_CHUNK, type ClickRecord, metadataJson, RETENTION_CHUNK } from "./writerStore";
import { Tallies } from "./tallies";

/** A batch's tallies (tallies.ts) in one statement; 'last_ms' keeps the larger value. */
const UPSERT_TALLIES = `INSERT INTO link_rollups (link_id, dim, value, count)
  SELECT (j ->> 0)::integer, j ->> 1, j ->> 2, (j ->> 3)::bigint FROM json_array_elements($1::text::json) AS j
  ON CONFLICT (link_id, dim, value) DO UPDATE SET count = CASE WHEN excluded.dim = 'summary' AND excluded.value = 'last_ms'
    THEN GREATEST(link_rollups.count, excluded.count) ELSE link_rollups.count + excluded.count END`;

/**
 * Per (link, 'visitor' or 'botvisitor', visitor): n clicks more on its visitor tally, and the
 * tally after (writerStore.ts says why bots have their own).
 */
const UPSERT_VISITORS = `INSERT INTO link_rollups (link_id, dim, value, count)
  SELECT j.l, j.d, j.v, j.n FROM json_to_recordset($1::text::json) AS j(l integer, d text, v text, n bigint)
  ON CONFLICT (link_id, dim, value) DO UPDATE SET count = link_rollups.count + excluded.count RETURNING link_id, dim, value, count`;

type VisitorTally = { l: number; d: string; v: string; n: number };
const byKey = (a: VisitorTally, b: VisitorTally) => a.l - b.l || (a.d < b.d ? -1 : a.d > b.d ? 1 : 0) || (a.v < b.v ? -1 : a.v > b.v ? 1 : 0);

const COLUMNS = "id, link_id, timestamp, referrer, user_agent, ip, country, city, device_type, browser, os, visitor_id, is_bot, metadata, route";

/**
 * A value as COPY's text format writes it: `\N` for null; backslash, tab, newline and carriage
 * return escaped. U+0000, which PostgreSQL's text cannot hold (a header cannot carry it either),
 * is dropped rather than failing the whole batch at every retry.
 */
function copyText(v: string | null) {
  if (v === null) return "\\N";
  return /[\\\t\n\r\0]/.test(v) ? v.replace(/[\\\t\n\r\0]/g, (c) => (c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : c === "\r" ? "\\r" : "")) : v;
}

/**
 * Writes a batch (clicks in capture order) in one transaction: counts, rows, milestone notices.
 * `countedOnly`: per link, clicks to count without a row (dropped under overload, recorder.ts).
 * Clicks of a link deleted meanwhile are not kept (its history went with it). Returns the rows written.
 */
export function writeClicks(pool: SQL, clicks: ClickRecord[], countedOnly?: ReadonlyMap<number, number>) {
  return pool.begin(async (tx) => {
    // The turn (see above). A statement of its own: the next ones read what the previous writer
    // committed while this one waited (each statement sees the commits made before it starts).
    await tx`SELECT folded FROM click_fold WHERE id = 1 FOR UPDATE`;
    const counts = new Map<number, number>();
    for (const c of clicks) counts.set(c.linkId, (counts.get(c.linkId) ?? 0) + 1);
    if (countedOnly) for (const [linkId, n] of countedOnly) counts.set(linkId, (counts.get(linkId) ?? 0) + n);
    if (counts.size === 0) return 0;
    // In link order, so two writers that ever ran side by side would lock the rows in one order.
    const sorted = [...counts].sort((a, b) => a[0] - b[0]);
    const moved = (await tx.unsafe(
      `UPDATE link_click_counts c SET clicks = c.clicks + j.n
       FROM json_to_recordset($1::text::json) AS j(link_id integer, n bigint)
       WHERE c.link_id = j.link_id RETURNING c.link_id, c.clicks`,
      [JSON.stringify(sorted.map(([link_id, n]) => ({ link_id, n })))],
    )) as { link_id: number; clicks: bigint }[];
    // A link without a count row was deleted (every live link has one): it is not returned.
    const live = new Set<number>();
    for (const r of moved) live.add(r.link_id);
    const kept = clicks.filter((c) => live.has(c.linkId));
    const tallies = new Tallies();
    if (countedOnly) for (const [linkId, n] of countedOnly) if (live.has(linkId)) tallies.countedOnly(linkId, n);
    if (kept.length) await insertRows(tx, kept, tallies);
    if (tallies.size) await tx.unsafe(UPSERT_TALLIES, [tallies.json()]);
    // The event log's clicks.recorded, one per link of the batch; milestone notices are its consumers'.
    await appendClickEvents(pgQueries(tx), moved.map((r) => ({ linkId: r.link_id, n: counts.get(r.link_id)!, total: Number(r.clicks) })));
    return kept.length;
  });
}

/**
 * The rows that keep their detail, ids above every id given so far (and the fold mark), with
 * their visit numbers; every click's tallies into `tallies`. A click's visit number is its
 * visitor tally after it ('visitor' for people, 'botvisitor' for bots: one upsert for the
 * batch, RETURNING the counts); while the backfill of older clicks is pending, the visitor's
 * rows of its kind on the link so far (one grouped read) plus this batch's earlier ones. A
 * visitor whose cookie was minted by this very click is visit 1 as it stands.
 */
async function insertRows(tx: SQL, clicks: ClickRecord[], tallies: Tallies) {
  const [{ id: lastId, pending }] = (await tx`SELECT GREATEST(COALESCE((SELECT MAX(id) FROM link_analytics), 0), folded) AS id,
    EXISTS (SELECT 1 FROM click_backfill WHERE done < upto) AS pending FROM click_fold WHERE id = 1`) as { id: bigint; pending: boolean }[];
  const dimOf = (c: ClickRecord) => (c.isBot ? "botvisitor" : "visitor");
  const key = (linkId: number, dim: string, visitorId: string) => `${linkId}\n${dim}\n${visitorId}`;
  // The visitor tallies of the batch's clicks.
  const tally = new Map<string, VisitorTally>();
  for (const c of clicks) {
    const k = key(c.linkId, dimOf(c), c.visitorId);
    const t = tally.get(k);
    if (t) t.n++;
    else tally.set(k, { l: c.linkId, d: dimOf(c), v: c.visitorId, n: 1 });
  }
  const tallyBefore = new Map<string, number>();
  if (tally.size) {
    const after = (await tx.unsafe(UPSERT_VISITORS, [JSON.stringify([...tally.values()].sort(byKey))])) as { link_id: number; dim: string; value: string; count: bigint }[];
    for (const r of after) {
      const k = key(r.link_id, r.dim, r.value);
      const before = Number(r.count) - tally.get(k)!.n;
      tallyBefore.set(k, before);
      if (before === 0 && r.dim === "visitor") tallies.add(r.link_id, "summary", "unique");
    }
  }
  // Visit numbers counted from the rows while the backfill is pending.
  const seen = new Map<string, number>();
  const ask = new Map<string, { v: string; l: number; b: number }>();
  if (pending) for (const c of clicks) if (!c.newVisitor && c.detail) ask.set(key(c.linkId, dimOf(c), c.visitorId), { v: c.visitorId, l: c.linkId, b: c.isBot ? 1 : 0 });
  if (ask.size) {
    const stored = (await tx.unsafe(
      `SELECT a.link_id, a.is_bot, a.visitor_id, COUNT(*)::int AS n FROM link_analytics a
       JOIN json_to_recordset($1::text::json) AS j(v text, l integer, b integer) ON a.visitor_id = j.v AND a.link_id = j.l AND a.is_bot = j.b
       GROUP BY a.link_id, a.is_bot, a.visitor_id`,
      [JSON.stringify([...ask.values()])],
    )) as { link_id: number; is_bot: number | boolean; visitor_id: string; n: number }[];
    for (const r of stored) seen.set(key(r.link_id, Number(r.is_bot) ? "botvisitor" : "visitor", r.visitor_id), r.n);
  }
  let id = Number(lastId);
  let text = "";
  for (const c of clicks) {
    const k = key(c.linkId, dimOf(c), c.visitorId);
    let visitNumber: number;
    if (pending) {
      const before = seen.get(k) ?? 0;
      if (c.detail) seen.set(k, before + 1);
      visitNumber = before + 1;
    } else {
      const before = tallyBefore.get(k)! + 1;
      tallyBefore.set(k, before);
      visitNumber = before;
    }
    if (c.newVisitor) visitNumber = 1;
    tallies.click({ ...c, visitNumber });
    if (!c.detail) continue;
    text += `${++id}\t${c.linkId}\t${c.timestamp}\t${copyText(c.referrer)}\t${copyText(c.userAgent)}\t${copyText(c.ip)}\t${copyText(c.country)}\t${copyText(c.city)}\t${copyText(c.deviceType)}\t${copyText(c.browser)}\t${copyText(c.os)}\t${copyText(c.visitorId)}\t${c.isBot ? 1 : 0}\t${copyText(metadataJson(visitNumber, c.source, c.isBot))}\t${copyText(c.route ?? null)}\n`;
  }
  if (!text) return;
  const writer = tx.unsafe(`COPY link_analytics (${COLUMNS}) FROM STDIN`).writable().getWriter();
  try {
    await writer.write(text);
    await writer.close();
  } catch (e) {
    await writer.abort(e).catch(() => {});
    throw e;
  }
}

/**
 * One step of the one-time roll-up backfill (migrations/pg/0012), as writerStore.ts does it on
 * SQLite, in one transaction that takes the writers' turn first (so two instances never tally
 * the same clicks, and no click batch interleaves). True while more is left.
 */
export function backfillStep(pool: SQL, limit = BACKFILL_CHUNK) {
  return pool.begin(async (tx) => {
    await tx`SELECT folded FROM click_fold WHERE id = 1 FOR UPDATE`;
    const [s] = (await tx`SELECT upto, done FROM click_backfill WHERE id = 1`) as { upto: bigint; done: bigint }[];
    if (!s || s.done >= s.upto) return false;
    const upto = Number(s.upto);
    const rows = ((await tx`SELECT id, link_id, timestamp, country, city, browser, device_type, os, referrer, visitor_id, is_bot, metadata
      FROM link_analytics WHERE id > ${s.done} AND id <= ${s.upto} ORDER BY id LIMIT ${limit}`) as BackfillRow[]).map((r) => ({ ...r, id: Number(r.id) }));
    const linkIds = [...new Set(rows.map((r) => r.link_id))];
    const marks = new Map<number, number>();
    if (linkIds.length) {
      const found = (await tx.unsafe(
        "SELECT link_id, count FROM link_rollups WHERE dim = 'summary' AND value = 'mark_id' AND link_id IN (SELECT value::integer FROM json_array_elements_text($1::text::json))",
        [JSON.stringify(linkIds)],
      )) as { link_id: number; count: bigint }[];
      for (const m of found) marks.set(m.link_id, Number(m.count));
    }
    const tallies = new Tallies();
    const visitors = new Map<string, VisitorTally>();
    for (const r of rows) {
      const c = backfillClick(r);
      tallies.summary(c);
      // Up to the mark the old roll-up has the per-value and people's visitor tallies.
      const tallied = r.id <= (marks.get(r.link_id) ?? 0);
      if (!tallied) tallies.dims(c);
      if (r.visitor_id && (c.isBot || !tallied)) {
        const d = c.isBot ? "botvisitor" : "visitor";
        const k = `${r.link_id}\n${d}\n${r.visitor_id}`;
        const v = visitors.get(k);
        if (v) v.n++;
        else visitors.set(k, { l: r.link_id, d, v: r.visitor_id, n: 1 });
      }
    }
    if (visitors.size) {
      const after = (await tx.unsafe(UPSERT_VISITORS, [JSON.stringify([...visitors.values()].sort(byKey))])) as { link_id: number; dim: string; value: string; count: bigint }[];
      for (const r of after) if (r.dim === "visitor" && Number(r.count) === visitors.get(`${r.link_id}\n${r.dim}\n${r.value}`)!.n) tallies.add(r.link_id, "summary", "unique");
    }
    if (tallies.size) await tx.unsafe(UPSERT_TALLIES, [tallies.json()]);
    const done = rows.length < limit ? upto : rows[rows.length - 1]!.id;
    await tx`UPDATE click_backfill SET done = ${done} WHERE id = 1`;
    return done < upto;
  });
}

/**
 * One step of retention on PostgreSQL (see writerStore.ts retentionChunk): up to `limit` of the
 * oldest rows stored before `cutoff`, with their links' 'rows' counts, never while the backfill
 * is pending. Returns the rows deleted. Instances doing it at once delete each row once (the
 * DELETE … RETURNING is what is counted).
 */
export function retentionStep(pool: SQL, cutoff: string, limit = RETENTION_CHUNK) {
  return pool.begin(async (tx) => {
    // The writers' turn: a reset or a batch never interleaves with the 'rows' counts moving.
    await tx`SELECT folded FROM click_fold WHERE id = 1 FOR UPDATE`;
    const [pending] = (await tx`SELECT 1 AS x FROM click_backfill WHERE done < upto`) as unknown[];
    if (pending) return 0;
    const gone = (await tx`DELETE FROM link_analytics WHERE id IN (SELECT id FROM link_analytics ORDER BY id LIMIT ${limit}) AND timestamp < ${cutoff}
      RETURNING id, link_id`) as { id: bigint; link_id: number }[];
    if (gone.length === 0) return 0;
    const perLink = new Map<number, number>();
    for (const r of gone) perLink.set(r.link_id, (perLink.get(r.link_id) ?? 0) + 1);
    await tx.unsafe(
      "DELETE FROM link_clicks WHERE (link_id, click_id) IN (SELECT (j ->> 0)::integer, (j ->> 1)::bigint FROM json_array_elements($1::text::json) AS j)",
      [JSON.stringify(gone.map((r) => [r.link_id, Number(r.id)]))],
    );
    await tx.unsafe(
      `UPDATE link_rollups r SET count = r.count - j.n FROM json_to_recordset($1::text::json) AS j(l integer, n bigint)
       WHERE r.link_id = j.l AND r.dim = 'summary' AND r.value = 'rows'`,
      [JSON.stringify([...perLink].sort((a, b) => a[0] - b[0]).map(([l, n]) => ({ l, n })))],
    );
    return gone.length;
  });
}
