import type { ReactNode } from "react";

// http(s)://… or www.…, up to whitespace or characters that cannot be part of a pasted link.
const URL_LIKE = /\b(?:https?:\/\/|www\.)[^\s<>"'`]+/gi;
// Sentence punctuation right after a link belongs to the sentence, not the link.
const TRAILING = /[.,;:!?)\]}]+$/;

/** The href for a candidate, or null when it is not an http(s) address. */
export function safeHref(candidate: string): string | null {
  const withScheme = /^www\./i.test(candidate) ? `https://${candidate}` : candidate;
  try {
    const url = new URL(withScheme);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/** Splits text into strings and link parts; nothing here ever becomes HTML. */
export function linkParts(text: string): ({ text: string } | { text: string; href: string })[] {
  const parts: ({ text: string } | { text: string; href: string })[] = [];
  let last = 0;
  for (const m of text.matchAll(URL_LIKE)) {
    let raw = m[0];
    const trail = raw.match(TRAILING)?.[0] ?? "";
    // Keep a closing bracket that closes one opened inside the link (Wikipedia-style URLs).
    if (trail && !(trail.startsWith(")") && raw.includes("("))) raw = raw.slice(0, raw.length - trail.length);
    const href = safeHref(raw);
    if (!href) continue;
    if (m.index > last) parts.push({ text: text.slice(last, m.index) });
    parts.push({ text: raw, href });
    last = m.index + raw.length;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}

/**
 * Text with its web addresses as links that open in a new tab. Built from React elements,
 * so user text is never parsed as HTML; clicks on a link do not reach the parent (which
 * would start editing).
 */
export function LinkedText({ text }: { text: string }) {
  const nodes: ReactNode[] = linkParts(text).map((p, i) =>
    "href" in p ? (
      <a key={i} href={p.href} target="_blank" rel="noopener noreferrer" onClick={(e) => e.stopPropagation()}>
        {p.text}
      </a>
    ) : (
      p.text
    ),
  );
  return <>{nodes}</>;
}
