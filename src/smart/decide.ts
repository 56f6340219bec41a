// Where a smart link sends one visitor, decided from memory: the link's settings compiled once
// when the link enters the redirect map (compile), then a few comparisons per redirect (decide).
// Pure: no clock, no request, no database; the redirect and the simulator give it the facts.
//
// Compact (H-smartcost): 100,000 links of three rules each cost ~1.5 KB and 24 heap objects a
// link as objects with a Set per condition and a string per route, and the server's request
// thread paid for that heap in collection (45 µs against a plain link's 26). Here a rule's OS,
// device and browser values are small numbers over the closed enums, its countries one string,
// its languages and cities lists shared by every rule that names the same ones, its route and
// the facts it needs shared constants, and identical settings compile to one shared object.
import { hrefOf } from "../links/redirectMap";
import { BROWSERS, DEVICES, LANGUAGE_MIN_Q, OSES, itemId, type SmartStored } from "./schema";

type Rule = {
  /** "rule:<id>" (the rule's stable id, itemId), what the click records. */
  route: string;
  name: string;
  /** The values of a closed enum, in the order given: 3 bits each, the value's index + 1. */
  device: number;
  os: number;
  browser: number;
  language: readonly string[] | null;
  /** Upper-case two-letter codes one after another ("DEAT"), in the order given; "" for none. */
  country: string;
  /** Lower-cased. */
  city: readonly string[] | null;
  fromMs: number | null;
  untilMs: number | null;
};

export type CompiledSmart = {
  password: { hash: string; version: number } | null;
  maxClicks: number | null;
  fallback: string | null;
  /** Shared by every link whose rules have the same names and conditions (not destinations). */
  rules: readonly Rule[];
  /** Each rule's destination, by the rule's index: the one part of a rule most links have of their own. */
  hrefs: readonly string[];
  split: { variants: { route: string; name: string; href: string; weight: number }[]; total: number; sticky: boolean } | null;
  /** Which facts the rules read: the redirect works out only those. */
  needs: Readonly<{ agent: boolean; language: boolean; place: boolean }>;
};

export type Language = { tag: string; q: number };

/** The visitor as the rules see it. Unknown facts are null (a condition on them does not match). */
export type Facts = {
  device: string | null;
  os: string | null;
  browser: string | null;
  languages: readonly Language[];
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

/**
 * Strings and lists many links repeat (rule names, language and city lists, destinations shared
 * by many links' rules), kept once. Bounded: cleared whole when full, as the agent cache; what
 * was shared before stays shared.
 */
class Interned<T> {
  private m = new Map<string, T>();
  constructor(private max: number) {}
  get(key: string, make: () => T): T {
    const hit = this.m.get(key);
    if (hit !== undefined) return hit;
    const v = make();
    if (this.m.size >= this.max) this.m.clear();
    this.m.set(key, v);
    return v;
  }
}
const strings = new Interned<string>(8192);
const lists = new Interned<readonly string[]>(1024);
type SharedRules = { rules: readonly Rule[]; needs: CompiledSmart["needs"] };
const ruleLists = new Interned<SharedRules>(1024);

const RULE_ROUTES = Array.from({ length: 64 }, (_, i) => `rule:${i + 1}`);
const VARIANT_ROUTES = Array.from({ length: 26 }, (_, i) => `variant:${i + 1}`);
const NEEDS = Array.from({ length: 8 }, (_, i) => Object.freeze({ agent: (i & 1) !== 0, language: (i & 2) !== 0, place: (i & 4) !== 0 }));

const intern = (s: string) => strings.get(s, () => s);
// hrefOf: the URL parser's href without the parser for the usual destination (a third of
// compiling). Not interned: a destination is the one thing most links' rules have of their own,
// and a map lookup per destination was a sixth of compiling when none repeated.
const href = (url: string) => hrefOf(url);
/** A condition's values once each, in the order given, mapped by `f`; one frozen list per distinct one. */
function list(xs: readonly string[] | undefined, f: (s: string) => string) {
  if (!xs?.length) return null;
  const out: string[] = [];
  for (const x of xs) {
    const v = f(x);
    if (!out.includes(v)) out.push(v);
  }
  return lists.get(out.join("\n"), () => Object.freeze(out.map(intern)));
}

/** A list of a closed enum's values as 3-bit digits (index + 1), the first value lowest, each once. */
function packEnum(xs: readonly string[] | undefined, all: readonly string[]) {
  if (!xs) return 0;
  let packed = 0;
  let shift = 1;
  let seen = 0;
  for (const x of xs) {
    const i = all.indexOf(x);
    if (i < 0 || seen & (1 << i)) continue;
    seen |= 1 << i;
    packed += (i + 1) * shift;
    shift *= 8;
  }
  return packed;
}

/** Two-letter country codes, upper-cased, once each, one after another. */
function packCountries(xs: readonly string[] | undefined) {
  let packed = "";
  for (const x of xs ?? []) {
    const c = x.toUpperCase();
    if (!inCountries(packed, c)) packed += c;
  }
  return intern(packed);
}

/** What a rule list is keyed by when shared: every name and condition, none of the destinations. */
function rulesKey(rules: SmartStored["rules"]) {
  let k = "";
  for (const [i, r] of rules.entries()) {
    const w = r.when;
    k += `${itemId(r, i)}\u0001${r.name}\u0001${w.device?.join() ?? ""}\u0001${w.os?.join() ?? ""}\u0001${w.browser?.join() ?? ""}\u0001${w.language?.join() ?? ""}\u0001${w.country?.join() ?? ""}\u0001${w.city?.join("\u0003") ?? ""}\u0001${w.from ?? ""}\u0001${w.until ?? ""}\u0002`;
  }
  return k;
}

const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined) =>
  a === b || (a !== undefined && b !== undefined && a.length === b.length && a.every((x, i) => x === b[i]));

/** Whether two stored rule lists have the same names and conditions (destinations aside). */
function sameRules(a: SmartStored["rules"], b: SmartStored["rules"]) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    const v = x.when;
    const w = y.when;
    if (itemId(x, i) !== itemId(y, i) || x.name !== y.name || (v.from ?? null) !== (w.from ?? null) || (v.until ?? null) !== (w.until ?? null)) return false;
    if (!sameList(v.device, w.device) || !sameList(v.os, w.os) || !sameList(v.browser, w.browser)) return false;
    if (!sameList(v.language, w.language) || !sameList(v.country, w.country) || !sameList(v.city, w.city)) return false;
  }
  return true;
}
let lastRules: SmartStored["rules"] = [];
let lastShared: SharedRules = { rules: Object.freeze([]), needs: NEEDS[0]! };

function compileRules(rules: SmartStored["rules"]): SharedRules {
  let needs = 0;
  const out = rules.map((r, i): Rule => {
    const id = itemId(r, i);
    const rule: Rule = {
      route: RULE_ROUTES[id - 1] ?? `rule:${id}`,
      name: intern(r.name || `Rule ${i + 1}`),
      device: packEnum(r.when.device, DEVICES),
      os: packEnum(r.when.os, OSES),
      browser: packEnum(r.when.browser, BROWSERS),
      language: list(r.when.language, (l) => l.toLowerCase()),
      country: packCountries(r.when.country),
      city: list(r.when.city, (c) => c.toLowerCase()),
      fromMs: r.when.from ? Date.parse(r.when.from) : null,
      untilMs: r.when.until ? Date.parse(r.when.until) : null,
    };
    if (rule.device || rule.os || rule.browser) needs |= 1;
    if (rule.language) needs |= 2;
    if (rule.country || rule.city) needs |= 4;
    return Object.freeze(rule);
  });
  return { rules: Object.freeze(out), needs: NEEDS[needs]! };
}

function inEnum(packed: number, value: string | null, all: readonly string[]) {
  if (value === null) return false;
  const want = all.indexOf(value) + 1;
  for (let p = packed; p > 0; p = Math.floor(p / 8)) if (p % 8 === want) return true;
  return false;
}

function enumValues(packed: number, all: readonly string[]) {
  const out: string[] = [];
  for (let p = packed; p > 0; p = Math.floor(p / 8)) out.push(all[(p % 8) - 1]!);
  return out;
}

function inCountries(packed: string, code: string | null) {
  if (code === null || code.length !== 2) return false;
  const a = code.charCodeAt(0);
  const b = code.charCodeAt(1);
  for (let i = 0; i < packed.length; i += 2) if (packed.charCodeAt(i) === a && packed.charCodeAt(i + 1) === b) return true;
  return false;
}

const countryList = (packed: string) => packed.match(/../g) ?? [];

/**
 * compile for a link's stored settings as the column holds them (JSON). Links with the same text
 * one after another (made from one template, a bulk import: a whole load reads them in id order)
 * share one compiled object. One entry, not a map of texts: hashing every link's text into a
 * bounded map doubled compiling's cost when no two were alike (~2.5 µs a link).
 */
let lastJson = "";
let lastCompiled: CompiledSmart | null = null;
export function compileJson(json: string): CompiledSmart | null {
  if (json !== lastJson) {
    lastCompiled = compile(JSON.parse(json) as SmartStored);
    lastJson = json;
  }
  return lastCompiled;
}

/** The stored settings made ready for decide; null when nothing in them changes a redirect. */
export function compile(s: SmartStored | null): CompiledSmart | null {
  if (!s) return null;
  // The previous link's rules first (links made together are loaded together; comparing them
  // costs less than the map's key), then the map.
  if (!sameRules(s.rules, lastRules)) {
    lastShared = ruleLists.get(rulesKey(s.rules), () => compileRules(s.rules));
    // A copy: a caller may change its settings object and compile it again.
    lastRules = structuredClone(s.rules);
  }
  const { rules, needs } = lastShared;
  const hrefs = s.rules.map((r) => href(r.url));
  const split = s.split
    ? {
        variants: s.split.variants.map((x, i) => ({ route: VARIANT_ROUTES[itemId(x, i) - 1] ?? `variant:${itemId(x, i)}`, name: intern(x.name || `Destination ${String.fromCharCode(65 + i)}`), href: href(x.url), weight: x.weight })),
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
    hrefs,
    split,
    needs,
  };
}

/**
 * An Accept-Language value as (tag, quality) pairs, highest quality first, at most 20 (a
 * header is capped before it gets here). Malformed entries are skipped, a weight outside RFC
 * 9110's qvalue grammar too ("q=abc", "q=1.5"): it was read as no weight, so full weight, and
 * "en;q=abc" matched an "en" rule; a missing q is 1.
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
      if (!/^\s*q\s*=/i.test(p)) continue;
      const m = /^\s*q\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)\s*$/i.exec(p);
      if (!m) {
        q = 0;
        break;
      }
      q = Number(m[1]);
    }
    if (q > 0) out.push({ tag, q });
  }
  return out.sort((a, b) => b.q - a.q);
}

/** Accept-Language values repeat as user agents do: parsed once each (bounded, oldest out first). */
const parsedLanguages = new Map<string, readonly Language[]>();
const LANGUAGES_MAX = 2000;

/** parseLanguages for the redirect: the same answer, shared and frozen, from a cache. */
export function languagesOf(header: string | null): readonly Language[] {
  if (!header) return NO_LANGUAGES;
  const hit = parsedLanguages.get(header);
  if (hit) return hit;
  const out = Object.freeze(parseLanguages(header).map((l) => Object.freeze(l)));
  if (parsedLanguages.size >= LANGUAGES_MAX) parsedLanguages.delete(parsedLanguages.keys().next().value!);
  parsedLanguages.set(header, out);
  return out;
}
const NO_LANGUAGES: readonly Language[] = Object.freeze([]);

/** A rule's tag "en" covers "en" and "en-GB"; "pt-br" covers "pt-br" only. */
const covers = (want: string, tag: string) => tag === want || (tag.charCodeAt(want.length) === 45 && tag.startsWith(want));

function languageMatch(wanted: readonly string[], langs: readonly Language[]): Language | null {
  for (const l of langs) {
    if (l.q < LANGUAGE_MIN_Q) continue;
    for (const w of wanted) if (covers(w, l.tag)) return l;
  }
  return null;
}

/**
 * Whether every condition rule `r` gives holds for `f`: the redirect's test, which builds no
 * text (mismatch's words for the simulator, built for every rule that did not match, were
 * strings and lists per rule per redirect, garbage at once: issue 24's benchmark walks them all).
 */
function holds(r: Rule, f: Facts): boolean {
  if (r.device && !inEnum(r.device, f.device, DEVICES)) return false;
  if (r.os && !inEnum(r.os, f.os, OSES)) return false;
  if (r.browser && !inEnum(r.browser, f.browser, BROWSERS)) return false;
  if (r.language && !languageMatch(r.language, f.languages)) return false;
  if (r.country && !inCountries(r.country, f.country)) return false;
  if (r.city && !(f.city && r.city.includes(f.city.toLowerCase()))) return false;
  if (r.fromMs !== null && f.now < r.fromMs) return false;
  if (r.untilMs !== null && f.now >= r.untilMs) return false;
  return true;
}

/** Why rule `r` does not match `f` (the simulator's words), or null when it does: the same test as holds. */
function mismatch(r: Rule, f: Facts): string | null {
  if (r.device && !inEnum(r.device, f.device, DEVICES)) return `device is ${f.device ?? "unknown"}, not ${enumValues(r.device, DEVICES).join(" or ")}`;
  if (r.os && !inEnum(r.os, f.os, OSES)) return `OS is ${f.os ?? "unknown"}, not ${enumValues(r.os, OSES).join(" or ")}`;
  if (r.browser && !inEnum(r.browser, f.browser, BROWSERS)) return `browser is ${f.browser ?? "unknown"}, not ${enumValues(r.browser, BROWSERS).join(" or ")}`;
  if (r.language && !languageMatch(r.language, f.languages)) {
    const seen = f.languages.length ? f.languages.map((l) => `${l.tag};q=${l.q}`).join(", ") : "none";
    return `no language ${r.language.join(" or ")} at quality ${LANGUAGE_MIN_Q} or more (visitor: ${seen})`;
  }
  if (r.country && !inCountries(r.country, f.country)) return `country is ${f.country ?? "unknown"}, not ${countryList(r.country).join(" or ")}`;
  if (r.city && !(f.city && r.city.includes(f.city.toLowerCase()))) return `city is ${f.city ?? "unknown"}, not one of the rule's`;
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
  for (let i = 0; i < c.rules.length; i++) if (holds(c.rules[i]!, f)) return { href: c.hrefs[i]!, route: c.rules[i]!.route };
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
  for (const [i, r] of c.rules.entries()) {
    const why = mismatch(r, f);
    steps.push({ rule: r.name, matched: why === null, why: why ?? "every condition holds" });
    if (why === null) return { href: c.hrefs[i]!, route: r.route, reason: `${r.name} matched (rules are tried in order; the first match wins).`, steps };
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
