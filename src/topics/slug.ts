// Isomorphic helpers for topic names and slugs (used by the server and the web app).

import { nameSlug } from "../shared/slug";

/**
 * A topic's base slug: the spec's rule, else the name's own letters (any script), else
 * "topic" (src/shared/slug.ts); the store adds -2, -3… when the user already holds it.
 */
export const slugify = (name: string) => nameSlug(name, "topic", false);

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
