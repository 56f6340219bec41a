// The server half of keyset paging (src/shared/paging.ts): cursors and the page headers.
import type { Context } from "elysia";
import { badRequest } from "../shared/errors";
import { CAPPED_HEADER, NEXT_HEADER, PAGE_MSG, TOTAL_HEADER } from "../shared/paging";

/** What a cursor holds: the sort it was made for and the last row's keys under that sort. */
export type CursorKeys = (string | number)[];

/** An opaque cursor (base64url of JSON): the sort's name, then the last row's sort keys. */
export function encodeCursor(sort: string, keys: CursorKeys): string {
  return Buffer.from(JSON.stringify([sort, ...keys])).toString("base64url");
}

/**
 * The keys of a cursor made for `sort` with keys of the `kinds` given, or null when it is not
 * one (made for another sort, edited by hand, from another list): the route answers 400.
 */
function decodeCursor(raw: string, sort: string, kinds: readonly ("string" | "int")[]): CursorKeys | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== kinds.length + 1 || parsed[0] !== sort) return null;
  const keys = parsed.slice(1);
  const ok = keys.every((k, i) =>
    kinds[i] === "int" ? Number.isSafeInteger(k) && Math.abs(k) <= 2 ** 53 : typeof k === "string" && k.length <= 500,
  );
  return ok ? (keys as CursorKeys) : null;
}

/** The cursor's keys for `sort`, null without a cursor; a cursor that is not one is a 400. */
export function cursorKeys(raw: string | undefined, sort: string, kinds: readonly ("string" | "int")[]): CursorKeys | null {
  if (raw === undefined || raw === "") return null;
  const keys = decodeCursor(raw, sort, kinds);
  if (!keys) throw badRequest(PAGE_MSG.cursor, { cursor: PAGE_MSG.cursor });
  return keys;
}

/** A page as a store returns it: the rows, whether more follow, the total (at most a cap, when `capped`). */
export type Page<T> = { rows: T[]; more: boolean; total: number; capped?: boolean };

/** Sets the page's headers; `next` makes the cursor from the page's last row. */
export function pageHeaders<T>(set: Context["set"], page: Page<T>, sort: string, keysOf: (row: T) => CursorKeys) {
  set.headers[TOTAL_HEADER] = String(page.total);
  if (page.capped) set.headers[CAPPED_HEADER] = "true";
  const last = page.rows[page.rows.length - 1];
  if (page.more && last !== undefined) set.headers[NEXT_HEADER] = encodeCursor(sort, keysOf(last));
}
