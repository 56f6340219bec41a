// A link's smart settings between the API's shapes and the stored one: read, shown, exported,
// and made from what a client sent (hashed, destinations checked). One place for the settings
// route, the link service (create, edit, bulk, import) and the exports.
import { hashPassword } from "../accounts/password";
import { destinationProblem } from "../links/destination";
import { badRequest } from "../shared/errors";
import { itemId, type SmartImportParsed, type SmartInputParsed, type SmartStored, type SmartView } from "./schema";

export const readStored = (row: { smart: string | null }): SmartStored | null => (row.smart ? (JSON.parse(row.smart) as SmartStored) : null);

export function smartView(stored: SmartStored | null, clicks: number): SmartView {
  return {
    hasPassword: Boolean(stored?.passwordHash),
    maxClicks: stored?.maxClicks ?? null,
    fallbackUrl: stored?.fallbackUrl ?? null,
    rules: (stored?.rules ?? []).map((r, i) => ({ id: itemId(r, i), name: r.name ?? "", when: r.when, url: r.url })),
    split: stored?.split ? { variants: stored.split.variants.map((x, i) => ({ id: itemId(x, i), name: x.name ?? "", url: x.url, weight: x.weight })), sticky: stored.split.sticky === true } : null,
    clicks,
  };
}

/**
 * The settings to store from what a client sent and what was stored: the password hashed (its
 * version bumped, which ends every earlier unlock), kept when absent. Null when nothing is set.
 * Every destination is checked like a link's own (no loops to our own hosts).
 */
export async function toStored(input: SmartInputParsed | SmartImportParsed, before: SmartStored | null, ownHosts: readonly string[], fieldPrefix = ""): Promise<SmartStored | null> {
  const problems: Record<string, string> = {};
  const check = (field: string, url: string | null | undefined) => {
    const p = url ? destinationProblem(url, [...ownHosts]) : null;
    // On a link's body the fields are under `smart.`; on PUT …/smart they are the body's own.
    if (p) problems[fieldPrefix + field] ??= p;
  };
  check("fallbackUrl", input.fallbackUrl);
  input.rules.forEach((r, i) => check(`rules.${i}.url`, r.url));
  input.split?.variants.forEach((x, i) => check(`split.variants.${i}.url`, x.url));
  const first = Object.entries(problems)[0];
  if (first) throw badRequest(first[1], problems);

  let passwordHash = before?.passwordHash ?? null;
  let passwordVersion = before?.passwordVersion ?? 0;
  if ("passwordHash" in input && input.passwordHash) {
    // An import of our own export: the hash as it was (SmartImport checked its form).
    passwordHash = input.passwordHash;
    passwordVersion++;
  } else if (input.password !== undefined) {
    passwordHash = input.password ? await hashPassword(input.password) : null;
    passwordVersion++;
  }
  const rules = withIds(input.rules, before?.rules ?? [], before?.ruleSeq, before === null, (r) => JSON.stringify([r.name, r.when, r.url]));
  const variants = input.split
    ? withIds(input.split.variants, before?.split?.variants ?? [], before?.variantSeq, before === null, (x) => JSON.stringify([x.name, x.url]))
    : { items: [], seq: seqOf(before?.split?.variants ?? [], before?.variantSeq) };
  const stored: SmartStored = {
    passwordHash,
    passwordVersion,
    maxClicks: input.maxClicks ?? null,
    fallbackUrl: input.fallbackUrl || null,
    rules: rules.items,
    split: input.split ? { ...input.split, variants: variants.items } : null,
    ruleSeq: rules.seq,
    variantSeq: variants.seq,
  };
  // The version outlives a removed password, so a password set again later opens no old cookie;
  // the id counters outlive removed rules, so a rule added later is not credited with their clicks.
  const empty = !passwordHash && stored.maxClicks === null && stored.rules.length === 0 && !stored.split;
  return empty && passwordVersion === 0 && rules.seq === 0 && variants.seq === 0 ? null : stored;
}

type WithId = { id?: number | undefined };

/** The highest id given so far: the counter, or for settings saved before it, the ids they read as. */
const seqOf = (before: readonly WithId[], seq: number | undefined) => Math.max(seq ?? 0, ...before.map(itemId), 0);

/**
 * Stable ids for rules (or split destinations) being saved. An id the settings had stays (a rule
 * edited or moved keeps its clicks); for a new link (an import of our export) any id given is
 * taken. A rule without one — a client that does not send ids — takes the id of an unclaimed
 * earlier rule identical to it (`same`), else a new id above every id given before, so a new
 * rule never inherits a removed one's clicks. Each id is used once.
 */
function withIds<T extends WithId>(given: readonly T[], before: readonly T[], seq: number | undefined, fresh: boolean, same: (x: T) => string) {
  const known = new Map(before.map((x, i) => [itemId(x, i), x]));
  const used = new Set<number>();
  const ids = given.map((x) => {
    if (x.id === undefined || used.has(x.id) || !(fresh || known.has(x.id))) return undefined;
    used.add(x.id);
    return x.id;
  });
  for (const [i, x] of given.entries()) {
    if (ids[i] !== undefined) continue;
    const key = same(x);
    for (const [id, old] of known) {
      if (!used.has(id) && same(old) === key) {
        used.add(id);
        ids[i] = id;
        break;
      }
    }
  }
  let next = Math.max(seqOf(before, seq), ...used);
  const items = given.map((x, i) => ({ ...x, id: ids[i] ?? ++next }));
  return { items, seq: next };
}

/** Settings that remove every one (`smart: null` on an edit): the password too. */
export const NO_SETTINGS: SmartInputParsed = { password: null, maxClicks: null, fallbackUrl: null, rules: [], split: null };

/**
 * The settings as an export carries them: what an import takes back (SmartImport), the password
 * as its hash (never in plain text), no click count (an export is a snapshot of the link, not of
 * its clicks). Null for a plain link.
 */
export function exportedSmart(stored: SmartStored | null) {
  if (!stored) return null;
  const { hasPassword: _has, clicks: _clicks, ...settings } = smartView(stored, 0);
  return { passwordHash: stored.passwordHash, ...settings };
}
