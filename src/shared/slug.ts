// Isomorphic slug rules for topic and title links (server stores, web links).
//
// The spec's rule (lower-case, runs of characters other than a-z and 0-9 become one hyphen,
// hyphens trimmed) is kept for every name it gives a slug to. A name it leaves empty (Hebrew,
// Cyrillic, Chinese, an emoji…) used to be refused (titles) or become "topic": such a name
// now keeps its own letters and numbers, of any script; a name with none (emoji only) gets a
// fallback. Names the spec rule already served keep their slug, so no stored link moves.

/** Spec §2: lower-case, runs of characters other than a-z and 0-9 become one hyphen. */
export function specSlug(name: string) {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** Letters (with their marks) and numbers of any script, lower-cased, runs of the rest → '-'. */
export function scriptSlug(name: string) {
  return name
    .normalize("NFC")
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "");
}

/**
 * The slug of a name with no letter or number at all (🚀, "!!!"): `fallback` followed by the
 * hex code points of its visible characters ("title-1f680"), so two emoji-only titles in one
 * topic still have pages of their own. Variation selectors and joiners are left out.
 */
export function codePointSlug(name: string, fallback: string) {
  const points = [...name]
    .filter((c) => !/[\s\ufe0f\u200d]/u.test(c))
    .map((c) => c.codePointAt(0)!.toString(16));
  return points.length ? `${fallback}-${points.join("-")}` : fallback;
}

/** The spec slug, else a slug in the name's own script, else `fallback` (with code points when `withPoints`). */
export function nameSlug(name: string, fallback: string, withPoints: boolean) {
  return specSlug(name) || scriptSlug(name) || (withPoints ? codePointSlug(name, fallback) : fallback);
}

// Characters as people count them (an emoji is one). Counting stops one past the limit:
// segmenting a whole 1 MB name took ~0.4 s and ~100 MB while every redirect waited (issue 11).
const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
export const graphemesAtMost = (s: string, max: number) => {
  if (s.length <= max) return true;
  let n = 0;
  for (const _ of segmenter.segment(s)) if (++n > max) return false;
  return true;
};
