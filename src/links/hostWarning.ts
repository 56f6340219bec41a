// Look-alike destinations: a host whose letters come from more than one writing system
// ("аррӏе.com": Cyrillic letters under a Latin .com) is accepted, but the API flags it with its
// punycode name so the Link Tracker can show what the host really is. The platform does the
// work: URL gives the punycode form, domainToUnicode the letters, and Unicode script
// properties say which alphabet each letter belongs to. No confusables table to keep.
import { domainToUnicode } from "node:url";
import { lookAlikeMessage, type HostWarning } from "./schema";

// Scripts named in warnings; a letter outside them counts as "another".
const SCRIPTS = [
  "Latin", "Cyrillic", "Greek", "Armenian", "Georgian", "Cherokee", "Coptic", "Hebrew", "Arabic",
  "Devanagari", "Bengali", "Tamil", "Thai", "Lao", "Ethiopic", "Han", "Hiragana", "Katakana", "Hangul", "Bopomofo",
].map((name) => [name, new RegExp(`^\\p{Script=${name}}$`, "u")] as const);

// Mixes that are simply how a language is written (Japanese, Korean, Chinese alongside Latin).
const NORMAL_MIXES = [
  new Set(["Latin", "Han", "Hiragana", "Katakana"]),
  new Set(["Latin", "Han", "Hangul"]),
  new Set(["Latin", "Han", "Bopomofo"]),
];

const LETTER = /^\p{L}$/u;

/** The warning for `url`'s host, or null when its letters are all of one script. */
export function hostWarning(url: string): HostWarning | null {
  let ascii: string;
  try {
    ascii = new URL(url).hostname;
  } catch {
    return null;
  }
  // An all-ASCII host has only Latin letters: only internationalised labels can mix.
  if (!/(^|\.)xn--/i.test(ascii)) return null;
  const scripts = new Set<string>();
  for (const ch of domainToUnicode(ascii)) {
    if (!LETTER.test(ch)) continue;
    scripts.add(SCRIPTS.find(([, re]) => re.test(ch))?.[0] ?? "another");
  }
  if (scripts.size < 2 || NORMAL_MIXES.some((ok) => [...scripts].every((s) => ok.has(s)))) return null;
  const list = [...scripts];
  return { asciiHost: ascii, scripts: list, message: lookAlikeMessage(list) };
}
