// Isomorphic helpers for topic names and slugs (used by the server and the web app).

/**
 * The spec's slug rule (topic page, titleSlug): lower-case, every run of characters other
 * than a-z and 0-9 becomes one hyphen, leading and trailing hyphens trimmed.
 */
export function slugify(name: string) {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

const pictographic = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;
const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * Splits a name that begins with an emoji followed by a space ("🚀 Launch") into
 * { emoji: "🚀", name: "Launch" }. Anything else is returned unchanged with no emoji.
 */
export function splitEmoji(full: string): { emoji: string | null; name: string } {
  const first = segmenter.segment(full)[Symbol.iterator]().next().value;
  if (!first || !pictographic.test(first.segment)) return { emoji: null, name: full };
  const rest = full.slice(first.segment.length);
  if (!/^\s/.test(rest) || !rest.trim()) return { emoji: null, name: full };
  return { emoji: first.segment, name: rest.trim() };
}

/** The name as users see it: the emoji, one space, the name. */
export const displayName = (t: { emoji: string | null; name: string }) => (t.emoji ? `${t.emoji} ${t.name}` : t.name);
