// UTM parameters: the dialogs' builder writes them into the destination (so the link stores a
// plain URL and the redirect does nothing extra), and users keep named sets as templates.
// Isomorphic: the web dialogs import it.
import * as v from "valibot";
import { noControlChars } from "../shared/text";

export const UTM_KEYS = ["source", "medium", "campaign", "term", "content"] as const;
export type UtmKey = (typeof UTM_KEYS)[number];
export type UtmFields = Record<UtmKey, string>;

const field = (what: string) => v.optional(v.pipe(v.string(`${what} must be text`), v.trim(), v.maxLength(200, `${what} must be at most 200 characters`), noControlChars(what)), "");

export const UtmTemplateBody = v.pipe(
  v.object({
    name: v.pipe(v.string("Name must be text"), v.trim(), v.nonEmpty("Name is required"), v.maxLength(60, "Name must be at most 60 characters"), noControlChars("Name")),
    source: field("Source"),
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
    if (value.trim() === "") u.searchParams.delete(`utm_${k}`);
    else u.searchParams.set(`utm_${k}`, value.trim());
  }
  return u.href;
}
