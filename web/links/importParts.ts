// The Import page sends a file in parts: the header row and up to PART_ROWS records each, cut
// at the records' own ends (a quoted line break stays inside its record), so the page can show
// progress between parts, stop between them when cancelled, and number rows as the file does.
import { recordEnds } from "../../src/shared/csvImport";

/** Records per request: one server batch, a fraction of a second each. */
export const PART_ROWS = 500;
/** A part grows to at most this many characters (a few rows of very long text stay small requests). */
const PART_CHARS = 1_000_000;
/** The server's cap for one request body (src/http/bodyLimit.ts CSV_BODY_BYTES). */
const MAX_PART_BYTES = 10 * 1024 * 1024;

/** A part to send, or one record too large to send at all (reported as skipped). */
export type Part = { kind: "send"; text: string; rowOffset: number; rows: number } | { kind: "too-large"; rowOffset: number; rows: 1 };

const utf8Length = (s: string) => new TextEncoder().encode(s).byteLength;

/** The file's data records as parts; `rows` is how many data records the file holds. */
export function splitIntoParts(text: string): { rows: number; parts: Part[] } {
  const ends = recordEnds(text);
  const header = text.slice(0, ends[0] ?? 0);
  const withNewline = /[\r\n]$/.test(header) ? header : `${header}\n`;
  const parts: Part[] = [];
  let start = 1;
  while (start < ends.length) {
    let end = start;
    let chars = 0;
    while (end < ends.length && end - start < PART_ROWS) {
      const size = ends[end]! - ends[end - 1]!;
      if (end > start && chars + size > PART_CHARS) break;
      chars += size;
      end++;
    }
    const body = text.slice(ends[start - 1], ends[end - 1]);
    // Only a part of one huge record can pass the cap (PART_CHARS keeps the others small).
    if (end - start === 1 && body.length * 3 > MAX_PART_BYTES - withNewline.length * 3 && utf8Length(withNewline + body) > MAX_PART_BYTES) {
      parts.push({ kind: "too-large", rowOffset: start - 1, rows: 1 });
    } else {
      parts.push({ kind: "send", text: withNewline + body, rowOffset: start - 1, rows: end - start });
    }
    start = end;
  }
  return { rows: Math.max(0, ends.length - 1), parts };
}

/**
 * This app's JSON export as parts: up to PART_ROWS links each, sent as `{"links": [...]}`, cut
 * short before PART_CHARS characters; one link too large to send alone is reported as skipped.
 * The server numbers a JSON file's links from 1 (no header row).
 */
export function splitJsonParts(links: readonly unknown[]): Part[] {
  const parts: Part[] = [];
  let start = 0;
  while (start < links.length) {
    const texts: string[] = [];
    let chars = 0;
    while (start + texts.length < links.length && texts.length < PART_ROWS) {
      const text = JSON.stringify(links[start + texts.length]) ?? "null";
      if (texts.length > 0 && chars + text.length > PART_CHARS) break;
      texts.push(text);
      chars += text.length + 1;
    }
    const body = `{"links":[${texts.join(",")}]}`;
    if (texts.length === 1 && body.length * 3 > MAX_PART_BYTES && utf8Length(body) > MAX_PART_BYTES) parts.push({ kind: "too-large", rowOffset: start, rows: 1 });
    else parts.push({ kind: "send", text: body, rowOffset: start, rows: texts.length });
    start += texts.length;
  }
  return parts;
}
