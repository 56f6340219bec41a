// Writing CSV cells, for every CSV this app sends (a link's clicks, the links export). On the
// ground floor: the analytics report and the links export both write cells, neither owns them.

/**
 * The formula guard, made reversible: a cell a spreadsheet would run as a formula (= + - @, a
 * tab or a carriage return first) gets a leading ', and so does one that already starts with
 * apostrophes before such a character ("'=x" is written "''=x"), so that unguard, taking one
 * apostrophe off exactly those cells, gives back what was written: "=x" and "'=x" both survive
 * an export and an import. A cell like "'hello" is left alone both ways.
 */
const GUARDED = /^'*[=+\-@\t\r]/;

/** RFC 4180 quoting, plus a leading quote on cells a spreadsheet would run as a formula. */
export function csvCell(v: string | null | undefined) {
  let s = v ?? "";
  if (GUARDED.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Undoes csvCell's guard on a cell read back (src/shared/csvImport.ts). */
export const unguardCell = (cell: string) => (/^'+[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);
