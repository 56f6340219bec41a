// Smart-link settings (issue 24): password, click limit with fallback, redirect rules, A/B split.
// One schema for the API and the edit dialog (isomorphic: nothing server-only here). A plain
// link has no settings at all (null), so the redirect pays nothing for this feature.
import * as v from "valibot";
import { OriginalUrl } from "../links/destination";
import { noControlChars } from "../shared/text";
import { isRangeBound } from "../shared/time";

export const RULES_MAX = 20;
export const VARIANTS_MAX = 10;
export const VALUES_MAX = 30;
export const PASSWORD_MIN = 4;
export const PASSWORD_MAX = 128;
export const MAX_CLICKS_MAX = 1_000_000_000;
/**
 * A language condition matches an Accept-Language entry of at least this quality (q). Browsers
 * put the visitor's own languages at 1.0–0.9 and add English lower down ("it-IT,it;q=0.9,
 * en-US;q=0.8,en;q=0.7" in an Italian Chrome): a rule for "en" then does not capture Italian
 * visitors (the confusion of Shlink #2043). README "Smart links" states it.
 */
export const LANGUAGE_MIN_Q = 0.9;
/** How long a correct password unlocks its link in that browser (the cookie's Max-Age). */
export const UNLOCK_TTL_S = 24 * 3600;

export const DEVICES = ["desktop", "mobile", "tablet"] as const;
export const OSES = ["ios", "android", "windows", "macos", "linux", "chromeos"] as const;
export const BROWSERS = ["chrome", "safari", "firefox", "edge", "opera", "samsung"] as const;
export type Device = (typeof DEVICES)[number];
export type Os = (typeof OSES)[number];
export type Browser = (typeof BROWSERS)[number];

export const SMART_MSG = {
  passwordShort: `Password must be at least ${PASSWORD_MIN} characters`,
  passwordLong: `Password must be at most ${PASSWORD_MAX} characters`,
  maxClicks: `Click limit must be a whole number from 1 to ${MAX_CLICKS_MAX.toLocaleString("en")}`,
  fallbackWithoutLimit: "A fallback URL needs a click limit",
  rulesMax: `At most ${RULES_MAX} rules`,
  ruleEmpty: "A rule needs at least one condition",
  valuesMax: `At most ${VALUES_MAX} values per condition`,
  country: "Countries are two-letter codes such as US or DE",
  city: "City names are 1 to 100 characters",
  language: "Languages are tags such as en, pt-BR or de",
  window: "Please enter a valid date",
  windowOrder: "The window's end must be after its start",
  variantsMin: "A split needs at least two destinations",
  variantsMax: `At most ${VARIANTS_MAX} destinations in a split`,
  weight: "Weights are whole numbers from 1 to 1,000",
  passwordHash: "passwordHash must be a password hash from this app's export",
  passwordAndHash: "Send password or passwordHash, not both",
} as const;

const list = <T extends v.GenericSchema<unknown, string>>(item: T) =>
  v.optional(v.pipe(v.array(item), v.maxLength(VALUES_MAX, SMART_MSG.valuesMax)));

/**
 * A date (2030-01-31, UTC midnight) or an RFC 3339 date-time, from 1970, as the analytics' ranges
 * take them. Date.parse alone took "0" or "12" as a year 2000 or 2001 date, so a typo became a
 * window decades ago (or a simulated visit then) instead of a refusal.
 */
const isWhen = (s: string) => s.length <= 40 && isRangeBound(s);

const When = v.pipe(
  v.string(SMART_MSG.window),
  v.trim(),
  v.check(isWhen, SMART_MSG.window),
  v.transform((s) => new Date(Date.parse(s)).toISOString()),
);

/** The conditions of one rule: every condition given must hold (AND); values of one condition are alternatives (OR). */
export const RuleConditions = v.pipe(
  v.object({
    device: list(v.picklist(DEVICES, `Device must be one of ${DEVICES.join(", ")}`)),
    os: list(v.picklist(OSES, `OS must be one of ${OSES.join(", ")}`)),
    browser: list(v.picklist(BROWSERS, `Browser must be one of ${BROWSERS.join(", ")}`)),
    language: list(v.pipe(v.string(SMART_MSG.language), v.trim(), v.regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$/, SMART_MSG.language), v.toLowerCase())),
    country: list(v.pipe(v.string(SMART_MSG.country), v.trim(), v.regex(/^[A-Za-z]{2}$/, SMART_MSG.country), v.toUpperCase())),
    city: list(v.pipe(v.string(SMART_MSG.city), v.trim(), v.minLength(1, SMART_MSG.city), v.maxLength(100, SMART_MSG.city), noControlChars("A city"))),
    from: v.optional(v.pipe(v.nullable(When), v.description("The start of a rule's time window (a date, UTC midnight, or an RFC 3339 date-time with its offset, from 1970), or null for none."))),
    until: v.optional(v.nullable(When)),
  }),
  v.check((c) => !c.from || !c.until || Date.parse(c.until) > Date.parse(c.from), SMART_MSG.windowOrder),
  v.check(
    (c) => Boolean(c.device?.length || c.os?.length || c.browser?.length || c.language?.length || c.country?.length || c.city?.length || c.from || c.until),
    SMART_MSG.ruleEmpty,
  ),
);
export type RuleConditions = v.InferOutput<typeof RuleConditions>;

/**
 * A rule's or split destination's stable id: its clicks are recorded under it ("rule:7"), so they
 * stay its own when rules move or others are removed (docs/decisions.md, session 13 follow-ups).
 */
const ITEM_ID_MAX = 1_000_000_000;
const ItemId = (what: string) =>
  v.optional(
    v.pipe(
      v.number(`${what} id must be a whole number`),
      v.integer(`${what} id must be a whole number`),
      v.minValue(1, `${what} id must be a whole number`),
      v.maxValue(ITEM_ID_MAX, `${what} id must be a whole number`),
      v.description(`The ${what.toLowerCase()}'s stable id, which its clicks are counted under: send back the id the API gave to keep its analytics across edits and moves; leave it out for a new one (the server gives it one).`),
    ),
  );
export const Rule = v.object({
  id: ItemId("Rule"),
  /** A name for the analytics and the simulator ("iPhone users"); defaults to "Rule N". */
  name: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(60, "A rule's name must be at most 60 characters"), noControlChars("A rule's name")), ""),
  when: RuleConditions,
  url: OriginalUrl,
});

export const Variant = v.object({
  id: ItemId("Destination"),
  name: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(60, "A destination's name must be at most 60 characters"), noControlChars("A destination's name")), ""),
  url: OriginalUrl,
  weight: v.pipe(v.number(SMART_MSG.weight), v.integer(SMART_MSG.weight), v.minValue(1, SMART_MSG.weight), v.maxValue(1000, SMART_MSG.weight)),
});

export const Split = v.object({
  variants: v.pipe(v.array(Variant), v.minLength(2, SMART_MSG.variantsMin), v.maxLength(VARIANTS_MAX, SMART_MSG.variantsMax)),
  /** The same visitor gets the same destination while their tl_vid cookie lives (24 hours from their first visit; not renewed). */
  sticky: v.optional(v.boolean(), false),
});

/**
 * Every field of these two bodies is optional, so a body of other fields (a typo, another
 * route's body) would pass as "nothing set" — and for PUT clear every setting. Unknown fields
 * are refused instead, by name.
 */
// valibot reads a list as an object whose keys are "0", "1"…: a list is not an object here.
const strictMessage = (what: string) => (issue: v.StrictObjectIssue) =>
  issue.expected === "never" && !Array.isArray(issue.path?.at(-1)?.input) ? `Unknown field: ${String(issue.path?.at(-1)?.key ?? issue.input)}` : `${what} must be an object`;
const unknownField = strictMessage("Smart settings");

/** A fallback is where a spent limit sends visitors: without a limit it would never be used. */
const fallbackNeedsLimit = (s: { fallbackUrl: string | null; maxClicks: number | null }) => !s.fallbackUrl || s.maxClicks != null;

const smartEntries = {
  password: v.optional(
    v.pipe(
      v.nullable(
        v.pipe(
          v.string("Password must be text"),
          v.check((s) => s === "" || s.length >= PASSWORD_MIN, SMART_MSG.passwordShort),
          v.maxLength(PASSWORD_MAX, SMART_MSG.passwordLong),
        ),
      ),
      // Not the glossary's "password" (an account's, at least 8 characters).
      v.description(`The link's password, ${PASSWORD_MIN} to ${PASSWORD_MAX} characters: text sets it (and ends every earlier unlock), null or "" removes it, absent keeps the current one.`),
    ),
  ),
  maxClicks: v.optional(
    v.nullable(v.pipe(v.number(SMART_MSG.maxClicks), v.integer(SMART_MSG.maxClicks), v.minValue(1, SMART_MSG.maxClicks), v.maxValue(MAX_CLICKS_MAX, SMART_MSG.maxClicks))),
    null,
  ),
  /** Where a link past its click limit sends visitors; none: the 410 page. */
  fallbackUrl: v.optional(v.nullable(v.union([v.literal(""), OriginalUrl])), null),
  rules: v.optional(v.pipe(v.array(Rule), v.maxLength(RULES_MAX, SMART_MSG.rulesMax)), []),
  split: v.optional(v.nullable(Split), null),
};

/**
 * Refuses anything but a plain object before an object schema reads it: valibot's object
 * schemas take a list as an object of keys "0", "1"…, so `smart: []` passed as "no settings" and
 * an edit removed every one (a limit, rules, a split) without a word.
 */
const objectOnly = <T>(what: string) => v.custom<T>((x) => typeof x === "object" && x !== null && !Array.isArray(x), `${what} must be an object`);

const smartObject = v.strictObject(smartEntries, unknownField);

/**
 * What a client sends (PUT …/:id/smart, and `smart` on create, edit, bulk). `password`: absent
 * keeps the current one, null or "" removes it, text sets it (and ends every earlier unlock).
 */
export const SmartInput = v.pipe(
  objectOnly<v.InferInput<typeof smartObject>>("Smart settings"),
  smartObject,
  v.check((s) => fallbackNeedsLimit(s), SMART_MSG.fallbackWithoutLimit),
);

/**
 * A password hash as hashPassword makes it (argon2id, PHC form), the only kind an import takes:
 * the password page verifies it with Bun.password.verify, which must never meet another kind.
 */
const PASSWORD_HASH_FORM = /^\$argon2id\$v=19\$m=\d{1,7},t=\d{1,2},p=\d{1,2}\$[A-Za-z0-9+/]{8,64}\$[A-Za-z0-9+/]{16,128}$/;

/**
 * An import's settings (`smart` of this app's JSON export or CSV `smart` column): a create's,
 * or, for the password, the `passwordHash` our export writes, stored as it is (an export never
 * holds a password in plain text; docs/decisions.md).
 */
const smartImportObject = v.strictObject(
  {
    ...smartEntries,
    passwordHash: v.optional(v.nullable(v.pipe(v.string(SMART_MSG.passwordHash), v.regex(PASSWORD_HASH_FORM, SMART_MSG.passwordHash)))),
  },
  unknownField,
);
export const SmartImport = v.pipe(
  objectOnly<v.InferInput<typeof smartImportObject>>("Smart settings"),
  smartImportObject,
  v.check((s) => fallbackNeedsLimit(s), SMART_MSG.fallbackWithoutLimit),
  v.check((s) => !(s.password && s.passwordHash), SMART_MSG.passwordAndHash),
);
export type SmartImportParsed = v.InferOutput<typeof SmartImport>;
export type SmartInput = v.InferInput<typeof SmartInput>;
export type SmartInputParsed = v.InferOutput<typeof SmartInput>;

/** The settings as stored (short_links.smart, JSON) and read by the redirect: the password only as its hash. */
export type SmartStored = {
  passwordHash: string | null;
  /** Bumped at every password change: it is inside every unlock cookie's MAC, so older cookies stop working. */
  passwordVersion: number;
  maxClicks: number | null;
  fallbackUrl: string | null;
  rules: v.InferOutput<typeof Rule>[];
  split: v.InferOutput<typeof Split> | null;
  /**
   * The highest rule and split destination ids ever given (absent in settings saved before ids:
   * see itemId), so a new rule never takes a removed one's id and its clicks.
   */
  ruleSeq?: number;
  variantSeq?: number;
};

/**
 * A rule's or destination's id: the stored one, or for settings saved before ids (session 13
 * follow-ups) its 1-based position, which is what their clicks were recorded under ("rule:2").
 */
export const itemId = (x: { id?: number | undefined }, i: number) => x.id ?? i + 1;

/** The settings as the API returns them (never the hash). */
export const SmartView = v.object({
  hasPassword: v.boolean(),
  maxClicks: v.nullable(v.number()),
  fallbackUrl: v.nullable(v.string()),
  rules: v.array(v.object({ id: v.pipe(v.number(), v.description("The rule's stable id: its clicks are counted under route rule:<id>.")), name: v.string(), when: v.record(v.string(), v.unknown()), url: v.string() })),
  split: v.nullable(v.object({ variants: v.array(v.object({ id: v.pipe(v.number(), v.description("The destination's stable id: its clicks are counted under route variant:<id>.")), name: v.string(), url: v.string(), weight: v.number() })), sticky: v.boolean() })),
  clicks: v.pipe(v.number(), v.description("Clicks counted against the limit so far (the link's clicks).")),
});
export type SmartView = v.InferOutput<typeof SmartView>;

/** The Link Tracker's badges: which smart features a link uses. */
export const SmartBadges = v.object({ protected: v.boolean(), limited: v.boolean(), spent: v.boolean(), ruled: v.boolean(), split: v.boolean() });
export type SmartBadges = v.InferOutput<typeof SmartBadges>;

/** `clicks`: the link's clicks so far, as its limit counts them (spent: the limit is used up). */
export function badgesOf(s: Pick<SmartStored, "passwordHash" | "maxClicks" | "rules" | "split"> | null, clicks = 0): SmartBadges | null {
  if (!s) return null;
  const limited = s.maxClicks !== null;
  return { protected: s.passwordHash !== null, limited, spent: limited && clicks >= s.maxClicks!, ruled: s.rules.length > 0, split: s.split !== null };
}

/** A visitor to simulate. `useRequest`: take device, OS, browser, language, location and visitor cookie from this request, as the redirect reads them. */
export const SimulateBody = v.strictObject({
  useRequest: v.optional(v.boolean(), false),
  device: v.optional(v.nullable(v.picklist(DEVICES, `Device must be one of ${DEVICES.join(", ")}`))),
  os: v.optional(v.nullable(v.picklist(OSES, `OS must be one of ${OSES.join(", ")}`))),
  browser: v.optional(v.nullable(v.picklist(BROWSERS, `Browser must be one of ${BROWSERS.join(", ")}`))),
  /** An Accept-Language header value, or one tag ("it"). */
  language: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(200, "Language must be at most 200 characters"))), null),
  country: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.check((s) => s === "" || /^[A-Za-z]{2}$/.test(s), SMART_MSG.country), v.toUpperCase()))),
  city: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(100, SMART_MSG.city)))),
  /** When (default now): a date or an RFC 3339 date-time with its offset, as a rule window takes. */
  // Not a union with "": its refusal named the union's types instead of the date's message.
  at: v.optional(v.nullable(v.pipe(v.string(SMART_MSG.window), v.trim(), v.check((s) => s === "" || isWhen(s), SMART_MSG.window)))),
  /** Clicks so far, for a link with a limit (default: its real count). */
  clicks: v.optional(v.pipe(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0))), v.description("Clicks so far, for a link with a limit (default: its real count)."))),
  /** A visitor id, for a sticky split (default: this request's visitor cookie with useRequest, else a random one). */
  visitorId: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(64)))),
}, strictMessage("The visitor"));
export type SimulateBody = v.InferInput<typeof SimulateBody>;

export const Decision = v.object({
  /** Where the visitor goes; null: the 410 page (limit reached, no fallback). */
  destination: v.nullable(v.string()),
  /** What sent them: "rule:<id>", "variant:<id>" (the rule's or destination's stable id), "fallback", "gone" or "default" (the same value the click records). */
  route: v.string(),
  /** In words, for people. */
  reason: v.string(),
  /** The visitor as the rules saw them (after reading the request, for useRequest). */
  visitor: v.object({
    device: v.nullable(v.string()),
    os: v.nullable(v.string()),
    browser: v.nullable(v.string()),
    languages: v.array(v.object({ tag: v.string(), q: v.number() })),
    country: v.nullable(v.string()),
    city: v.nullable(v.string()),
    at: v.string(),
  }),
  /** Each rule in order and why it matched or not. */
  steps: v.array(v.object({ rule: v.string(), matched: v.boolean(), why: v.string() })),
  /** The password page is shown first (the simulator never asks for it). */
  passwordFirst: v.boolean(),
});
export type Decision = v.InferOutput<typeof Decision>;

/**
 * A click's route as people read it, with the names and places the settings give now: a route
 * names a rule or destination by its id (itemId), so a moved rule keeps its clicks; one removed
 * since says so rather than borrowing the name of whatever sits at its old place.
 */
export function routeName(route: string, s: Pick<SmartStored, "rules" | "split"> | null): string {
  const [kind, n] = route.split(":");
  const id = Number(n);
  if (kind === "rule") {
    const i = s?.rules.findIndex((r, j) => itemId(r, j) === id) ?? -1;
    return i < 0 ? `Removed rule (id ${n})` : `Rule ${i + 1}${s!.rules[i]!.name ? `: ${s!.rules[i]!.name}` : ""}`;
  }
  if (kind === "variant") {
    const variants = s?.split?.variants ?? [];
    const i = variants.findIndex((x, j) => itemId(x, j) === id);
    return i < 0 ? `Removed destination (id ${n})` : `Destination ${String.fromCharCode(65 + i)}${variants[i]!.name ? `: ${variants[i]!.name}` : ""}`;
  }
  if (route === "fallback") return "Fallback URL (limit reached)";
  if (route === "default") return "Default destination";
  return route;
}

// ---- UTM parameters: the dialogs' builder writes them into the destination (so the link stores a
// plain URL and the redirect does nothing extra), and users keep named sets as templates.

export const UTM_KEYS = ["source", "medium", "campaign", "term", "content"] as const;
export type UtmKey = (typeof UTM_KEYS)[number];
export type UtmFields = Record<UtmKey, string>;

const field = (what: string) => v.optional(v.pipe(v.string(`${what} must be text`), v.trim(), v.maxLength(200, `${what} must be at most 200 characters`), noControlChars(what)), "");

export const UtmTemplateBody = v.pipe(
  v.object({
    name: v.pipe(v.string("Name must be text"), v.trim(), v.nonEmpty("Name is required"), v.maxLength(60, "Name must be at most 60 characters"), noControlChars("Name")),
    source: v.pipe(field("Source"), v.description("utm_source: where the traffic comes from (newsletter, google).")),
    medium: field("Medium"),
    campaign: field("Campaign"),
    term: field("Term"),
    content: field("Content"),
  }),
  v.check((t) => UTM_KEYS.some((k) => t[k] !== ""), "Fill in at least one parameter"),
);

export const UtmTemplateView = v.object({
  id: v.number(),
  name: v.string(),
  source: v.string(),
  medium: v.string(),
  campaign: v.string(),
  term: v.string(),
  content: v.string(),
  createdAt: v.string(),
});
export type UtmTemplateView = v.InferOutput<typeof UtmTemplateView>;

/** The UTM values a URL carries now (empty strings for absent ones); null when it is not a URL. */
export function readUtm(url: string): UtmFields | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  return Object.fromEntries(UTM_KEYS.map((k) => [k, u.searchParams.get(`utm_${k}`) ?? ""])) as UtmFields;
}

/**
 * `url` with its utm_* parameters set to `fields`: an empty field removes its parameter, every
 * other query parameter and the fragment stay as they were. Unchanged when `url` is not a URL.
 */
export function applyUtm(url: string, fields: Partial<UtmFields>): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  for (const k of UTM_KEYS) {
    const value = fields[k];
    if (value === undefined) continue;
    // Untrimmed: the builder writes at every keystroke, so "spring sale" must survive its space.
    if (value === "") u.searchParams.delete(`utm_${k}`);
    else u.searchParams.set(`utm_${k}`, value);
  }
  return u.href;
}
