/** The one timestamp format stored and returned: ISO-8601 UTC with milliseconds. */
export const nowIso = () => new Date().toISOString();
export const isoIn = (ms: number) => new Date(Date.now() + ms).toISOString();
export const DAY_MS = 86_400_000;

// Time zones and range bounds for the analytics series (issue 23), shared with the web app: the
// query schema (src/analytics/schema.ts) checks with them, src/analytics/series.ts computes.

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's formatter, or null when Intl does not know the zone. */
function formatter(tz: string) {
  let f = formatters.get(tz);
  if (f) return f;
  try {
    // Only the offset: "GMT+05:45" (formatToParts of a whole date-time cost ~130 µs, this ~13).
    f = new Intl.DateTimeFormat("en-US", { timeZone: tz, timeZoneName: "longOffset" });
  } catch {
    return null;
  }
  // Bounded: a client sending every zone name fills it once (about 600 entries).
  if (formatters.size < 1_000) formatters.set(tz, f);
  return f;
}

/**
 * Loads ICU's zone data now (the first Intl.DateTimeFormat of a process: ~15 ms): the server
 * calls it at start, so the first report in a zone does not pay it.
 */
export const loadTimeZones = () => void formatter("Europe/Berlin");

/** True when `tz` is a time zone Intl knows (an IANA name, or UTC). */
export const isTimeZone = (tz: string) => tz.length <= 64 && formatter(tz) !== null;

/** The zone's offset from UTC at the instant `ms`, in ms (east positive). */
export function offsetAt(tz: string, ms: number) {
  // UTC, every report's default, has no offset to ask Intl for: the first Intl.DateTimeFormat of a
  // process loads ICU's zone data, 14-15 ms of the thread, and was a first analytics view's
  // largest single cost (docs/decisions.md, H-pgview).
  if (tz === "UTC" || tz === "Etc/UTC") return 0;
  const name = formatter(tz)!.formatToParts(new Date(ms)).find((p) => p.type === "timeZoneName")?.value ?? "GMT";
  const m = /^GMT([+-])(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?$/.exec(name);
  if (!m) return 0;
  const abs = (Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0)) * 1000;
  return m[1] === "-" ? -abs : abs;
}

export const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
// RFC 3339 date-time: an offset or Z is required (a bare local time would be ambiguous).
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** Whether `s` is a real calendar date (not 2026-02-30). */
function realDate(y: string, m: string, d: string) {
  const t = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  return t.getUTCFullYear() === Number(y) && t.getUTCMonth() === Number(m) - 1 && t.getUTCDate() === Number(d);
}

/** A range bound as the query may give it: a date or an RFC 3339 date-time. */
export function isRangeBound(s: string) {
  const d = DATE_ONLY.exec(s);
  if (d) return realDate(d[1]!, d[2]!, d[3]!) && Number(d[1]) >= 1970;
  const t = DATE_TIME.exec(s);
  return !!t && realDate(t[1]!, t[2]!, t[3]!) && Number(t[4]) < 24 && Number(t[5]) < 60 && Number(t[6] ?? 0) < 60 && Number.isFinite(Date.parse(s)) && Number(t[1]) >= 1970;
}

