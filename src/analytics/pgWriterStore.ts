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
import { type ClickRecord, metadataJson } from "./writerStore";

const COLUMNS = "id, link_id, timestamp, referrer, user_agent, ip, country, city, device_type, browser, os, visitor_id, is_bot, metadata";

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
    if (kept.length) await insertRows(tx, kept);
    // The event log's clicks.recorded, one per link of the batch; milestone notices are its consumers'.
    await appendClickEvents(pgQueries(tx), moved.map((r) => ({ linkId: r.link_id, n: counts.get(r.link_id)!, total: Number(r.clicks) })));
    return kept.length;
  });
}

/** The rows, ids above every id given so far (and the fold mark), with their visit numbers. */
async function insertRows(tx: SQL, clicks: ClickRecord[]) {
  const [{ id: lastId }] = (await tx`SELECT GREATEST(COALESCE((SELECT MAX(id) FROM link_analytics), 0), folded) AS id FROM click_fold`) as { id: bigint }[];
  // A visit number is the visitor's clicks on the link so far, this one included: those stored
  // (one grouped read for every (visitor, link) of the batch that needs it) plus this batch's
  // earlier ones. A visitor whose cookie was minted by this very click is visit 1 as it stands.
  const key = (c: ClickRecord) => `${c.linkId}\n${c.visitorId}`;
  const seen = new Map<string, number>();
  const ask = new Map<string, { v: string; l: number }>();
  for (const c of clicks) if (!c.newVisitor) ask.set(key(c), { v: c.visitorId, l: c.linkId });
  if (ask.size) {
    const stored = (await tx.unsafe(
      `SELECT a.link_id, a.visitor_id, COUNT(*)::int AS n FROM link_analytics a
       JOIN json_to_recordset($1::text::json) AS j(v text, l integer) ON a.visitor_id = j.v AND a.link_id = j.l
       GROUP BY a.link_id, a.visitor_id`,
      [JSON.stringify([...ask.values()])],
    )) as { link_id: number; visitor_id: string; n: number }[];
    for (const r of stored) seen.set(`${r.link_id}\n${r.visitor_id}`, r.n);
  }
  let id = Number(lastId);
  let text = "";
  for (const c of clicks) {
    const k = key(c);
    const before = seen.get(k) ?? 0;
    seen.set(k, before + 1);
    const visitNumber = c.newVisitor ? 1 : before + 1;
    text += `${++id}\t${c.linkId}\t${c.timestamp}\t${copyText(c.referrer)}\t${copyText(c.userAgent)}\t${copyText(c.ip)}\t${copyText(c.country)}\t${copyText(c.city)}\t${copyText(c.deviceType)}\t${copyText(c.browser)}\t${copyText(c.os)}\t${copyText(c.visitorId)}\t${c.isBot ? 1 : 0}\t${copyText(metadataJson(visitNumber, c.source, c.isBot))}\n`;
  }
  const writer = tx.unsafe(`COPY link_analytics (${COLUMNS}) FROM STDIN`).writable().getWriter();
  try {
    await writer.write(text);
    await writer.close();
  } catch (e) {
    await writer.abort(e).catch(() => {});
    throw e;
  }
}
