// Many Link Tracker links at once: bulk create (POST /api/links/bulk) and import share this.
// Every item gets the checks POST /api/links gives one link (src/links/routes.ts): the create
// schema (reserved codes included), the destination against this instance's own hosts, an
// expiry in the future, and a free code, decided by the UNIQUE constraint as the rows are written.
import * as v from "valibot";
import { validationFailure } from "../shared/errors";
import { isReserved } from "../shared/reserved";
import { BULK_MSG, CreateLinkBody, MSG, destinationProblem, type ItemError } from "./schema";
import { generateCode } from "./routes";
import type { Links } from "./service";
import { OVER_QUOTA, type LinkRow, type NewLink } from "./store";
import { QUOTA_MSG } from "../plans/quotas";

/**
 * Items checked and written per transaction. Each costs ~20–100 µs (the create's checks, the
 * insert and its trigger, the redirect-map entry), so 100 hold the event loop for a few
 * milliseconds at most: a redirect arriving meanwhile waits that long (500 measured stalls up to
 * ~90 ms on this machine; docs/performance.md, "Import").
 */
export const WRITE_BATCH = 100;

/**
 * A turn of the event loop between two transactions: on SQLite a transaction holds the one
 * connection (other requests' statements wait for its end), so redirects and reads get in here.
 */
export const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export type Checked = { ok: true; link: NewLink } | { ok: false; error: ItemError };

const refusal = (code: ItemError["code"], message: string, field?: string): ItemError => ({
  code,
  message,
  ...(field ? { fields: { [field]: message } } : {}),
});

/** One item checked as a single create checks its body, or the reason it is refused. */
export function checkItem(item: unknown, ownHosts: readonly string[], now = Date.now()): Checked {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return { ok: false, error: refusal("VALIDATION", BULK_MSG.notObject) };
  const parsed = v.safeParse(CreateLinkBody, item, { abortEarly: true });
  if (!parsed.success) {
    const failure = validationFailure(parsed.issues[0]);
    return { ok: false, error: { code: "VALIDATION", message: failure.message, ...(failure.fields ? { fields: failure.fields } : {}) } };
  }
  const body = parsed.output;
  const problem = destinationProblem(body.originalUrl, [...ownHosts]);
  if (problem) return { ok: false, error: refusal("VALIDATION", problem, "originalUrl") };
  if (body.expiresAt && Date.parse(body.expiresAt) <= now) return { ok: false, error: refusal("VALIDATION", MSG.expiresPast, "expiresAt") };
  return { ok: true, link: { ...body, shortCode: body.shortCode || null } };
}

/** A generated code, or null when it happens to be a reserved word (the store tries again). */
const freshCode = () => {
  const c = generateCode();
  return isReserved(c) ? null : c;
};

/**
 * Writes checked links in one transaction and puts each new one in the redirect map at once.
 * Aligned with `items`: the row, or the reason it was not written (its code is taken, or the
 * owner's link quota is full: QUOTA_EXCEEDED for that item and every later one).
 */
export async function writeLinks(links: Links, userId: number, items: readonly NewLink[]): Promise<(LinkRow | ItemError)[]> {
  if (items.length === 0) return [];
  const rows = await links.store.createMany(userId, "main", items, freshCode);
  const out = rows.map((row, i) => {
    if (row === OVER_QUOTA) return refusal("QUOTA_EXCEEDED", QUOTA_MSG.links(links.store.maxPerUser));
    if (!row) return items[i]!.shortCode === null ? refusal("CONFLICT", BULK_MSG.noCode) : refusal("CONFLICT", MSG.codeTaken, "shortCode");
    links.remember(row);
    return row;
  });
  // Every instance has them before the answer (one barrier per batch of links).
  await links.published();
  return out;
}
