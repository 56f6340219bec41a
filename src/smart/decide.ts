// Where a smart link sends one visitor, decided from memory: the link's settings compiled once
// when the link enters the redirect map (compile), then a few Set lookups per redirect (decide).
// Pure: no clock, no request, no database; the redirect and the simulator give it the facts.
import { LANGUAGE_MIN_Q, type SmartStored } from "./schema";

type Rule = {
  /** "rule:N" (1-based), what the click records. */
  route: string;
  name: string;
  href: string;
  device: Set<string> | null;
  os: Set<string> | null;
  browser: Set<string> | null;
  language: string[] | null;
  country: Set<string> | null;
  /** Lower-cased. */
  city: Set<string> | null;
  fromMs: number | null;
  untilMs: number | null;
};

export type CompiledSmart = {
  password: { hash: string; version: number } | null;
  maxClicks: number | null;
  fallback: string | null;
  rules: Rule[];
  split: { variants: { route: string; name: string; href: string; weight: number }[]; total: number; sticky: boolean } | null;
  /** Which facts the rules read: the redirect works out only those. */
  needs: { agent: boolean; language: boolean; place: boolean };
};

export type Language = { tag: string; q: number };

/** The visitor as the rules see it. Unknown facts are null (a condition on them does not match). */
export type Facts = {
  device: string | null;
  os: string | null;
  browser: string | null;
  languages: Language[];
  country: string | null;
  city: string | null;
  now: number;
  visitorId: string | null;
  /** The link's clicks so far (for the limit). */
  clicks: number;
};

export type Outcome = { href: string | null; route: string };
export type Step = { rule: string; matched: boolean; why: string };
export type Explained = Outcome & { reason: string; steps: Step[] };

const href = (url: string) => new URL(url).href;
const set = (xs: string[] | undefined, f: (s: string) => string = (s) => s) => (xs && xs.length ? new Set(xs.map(f)) : null);

/** The stored settings made ready for decide; null when nothing in them changes a redirect. */
export function compile(s: SmartStored | null): CompiledSmart | null {
  if (!s) return null;
  const rules: Rule[] = s.rules.map((r, i) => ({
    route: `rule:${i + 1}`,
    name: r.name || `Rule ${i + 1}`,
    href: href(r.url),
    device: set(r.when.device),
    os: set(r.when.os),
    browser: set(r.when.browser),
    language: r.when.language?.length ? r.when.language.map((l) => l.toLowerCase()) : null,
    country: set(r.when.country, (c) => c.toUpperCase()),
    city: set(r.when.city, (c) => c.toLowerCase()),
    fromMs: r.when.from ? Date.parse(r.when.from) : null,
    untilMs: r.when.until ? Date.parse(r.when.until) : null,
  }));
  const split = s.split
    ? {
        variants: s.split.variants.map((x, i) => ({ route: `variant:${i + 1}`, name: x.name || `Destination ${String.fromCharCode(65 + i)}`, href: href(x.url), weight: x.weight })),
        total: s.split.variants.reduce((n, x) => n + x.weight, 0),
        sticky: s.split.sticky === true,
      }
    : null;
  const password = s.passwordHash ? { hash: s.passwordHash, version: s.passwordVersion } : null;
  if (!password && s.maxClicks === null && rules.length === 0 && !split) return null;
  return {
    password,
    maxClicks: s.maxClicks,
    fallback: s.fallbackUrl ? href(s.fallbackUrl) : null,
    rules,
    split,
    needs: {
      agent: rules.some((r) => r.device || r.os || r.browser),
      language: rules.some((r) => r.language),
      place: rules.some((r) => r.country || r.city),
    },
  };
}

/**
 * An Accept-Language value as (tag, quality) pairs, highest quality first, at most 20 (a
 * header is capped before it gets here). Malformed entries are skipped; a missing q is 1.
 */
export function parseLanguages(header: string | null): Language[] {
  if (!header) return [];
  const out: Language[] = [];
  for (const part of header.split(",", 20)) {
    const [rawTag, ...params] = part.trim().split(";");
    const tag = (rawTag ?? "").trim().toLowerCase();
    if (!/^[a-z]{1,8}(-[a-z0-9]{1,8})*$/.test(tag)) continue;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(p);
      if (m) q = Math.min(1, Number(m[1]));
    }
    if (q > 0) out.push({ tag, q });
  }
  return out.sort((a, b) => b.q - a.q);
}

/** A rule's tag "en" covers "en" and "en-GB"; "pt-br" covers "pt-br" only. */
const covers = (want: string, tag: string) => tag === want || tag.startsWith(`${want}-`);

function languageMatch(wanted: string[], langs: Language[]): Language | null {
  for (const l of langs) if (l.q >= LANGUAGE_MIN_Q && wanted.some((w) => covers(w, l.tag))) return l;
  return null;
}

/** Why rule `r` does not match `f`, or null when it does. Each condition given must hold. */
function mismatch(r: Rule, f: Facts): string | null {
  if (r.device && !(f.device && r.device.has(f.device))) return `device is ${f.device ?? "unknown"}, not ${[...r.device].join(" or ")}`;
  if (r.os && !(f.os && r.os.has(f.os))) return `OS is ${f.os ?? "unknown"}, not ${[...r.os].join(" or ")}`;
  if (r.browser && !(f.browser && r.browser.has(f.browser))) return `browser is ${f.browser ?? "unknown"}, not ${[...r.browser].join(" or ")}`;
  if (r.language && !languageMatch(r.language, f.languages)) {
    const seen = f.languages.length ? f.languages.map((l) => `${l.tag};q=${l.q}`).join(", ") : "none";
    return `no language ${r.language.join(" or ")} at quality ${LANGUAGE_MIN_Q} or more (visitor: ${seen})`;
  }
  if (r.country && !(f.country && r.country.has(f.country))) return `country is ${f.country ?? "unknown"}, not ${[...r.country].join(" or ")}`;
  if (r.city && !(f.city && r.city.has(f.city.toLowerCase()))) return `city is ${f.city ?? "unknown"}, not one of the rule's`;
  if (r.fromMs !== null && f.now < r.fromMs) return `before the window opens (${new Date(r.fromMs).toISOString()})`;
  if (r.untilMs !== null && f.now >= r.untilMs) return `after the window closed (${new Date(r.untilMs).toISOString()})`;
  return null;
}

/** FNV-1a: a visitor id and a link id to a stable number, so a sticky split gives a visitor one destination. */
export function stickyDraw(visitorId: string, linkId: number, total: number) {
  let h = 0x811c9dc5;
  const s = `${linkId}:${visitorId}`;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % total;
}

function pick(split: NonNullable<CompiledSmart["split"]>, draw: number) {
  for (const v of split.variants) {
    if (draw < v.weight) return v;
    draw -= v.weight;
  }
  return split.variants[split.variants.length - 1]!;
}

/**
 * The redirect's decision (the password is checked before: see redirects/routes.ts). Order:
 * the click limit (past it: the fallback or the 410 page), the rules (first match wins), the
 * split, the link's own destination. `random` draws a number in [0, 1) for a non-sticky split.
 */
export function decide(c: CompiledSmart, f: Facts, linkId: number, defaultHref: string, random: () => number = Math.random): Outcome {
  if (c.maxClicks !== null && f.clicks >= c.maxClicks) return c.fallback ? { href: c.fallback, route: "fallback" } : { href: null, route: "gone" };
  for (const r of c.rules) if (mismatch(r, f) === null) return { href: r.href, route: r.route };
  if (c.split) {
    const s = c.split;
    const draw = s.sticky && f.visitorId ? stickyDraw(f.visitorId, linkId, s.total) : Math.floor(random() * s.total);
    const v = pick(s, draw);
    return { href: v.href, route: v.route };
  }
  return { href: defaultHref, route: "default" };
}

/** The simulator's answer: the same decision, with every step in words. */
export function explain(c: CompiledSmart | null, f: Facts, linkId: number, defaultHref: string, random: () => number = Math.random): Explained {
  if (!c) return { href: defaultHref, route: "default", reason: "A plain link: every visitor goes to its destination.", steps: [] };
  const steps: Step[] = [];
  if (c.maxClicks !== null && f.clicks >= c.maxClicks) {
    const reason = `The click limit (${c.maxClicks}) is reached (${f.clicks} clicks): ${c.fallback ? "the fallback URL" : "the link answers its 410 page"}.`;
    return { ...decide(c, f, linkId, defaultHref, random), reason, steps };
  }
  for (const r of c.rules) {
    const why = mismatch(r, f);
    steps.push({ rule: r.name, matched: why === null, why: why ?? "every condition holds" });
    if (why === null) return { href: r.href, route: r.route, reason: `${r.name} matched (rules are tried in order; the first match wins).`, steps };
  }
  const out = decide(c, f, linkId, defaultHref, random);
  if (c.split) {
    const v = c.split.variants.find((x) => x.route === out.route)!;
    const how = c.split.sticky && f.visitorId ? "this visitor's sticky draw" : "a weighted random draw";
    const reason = `${c.rules.length ? "No rule matched; " : ""}the split chose ${v.name} (weight ${v.weight} of ${c.split.total}) by ${how}.`;
    return { ...out, reason, steps };
  }
  return { ...out, reason: c.rules.length ? "No rule matched: the link's own destination." : "The link's own destination.", steps };
}
