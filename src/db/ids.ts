// Row ids from paths. Ids are PostgreSQL `integer` (SQLite's never get near its limit), and
// PostgreSQL refuses to compare an integer column with a larger value (22003, a 5xx) instead
// of matching nothing; so a number past it names no row on either backend, before any query.
const MAX_ROW_ID = 2 ** 31 - 1;

/** The positive row id a path segment names, or null when it can name no row. */
export function rowId(raw: string): number | null {
  if (!/^\d{1,10}$/.test(raw)) return null;
  const id = Number(raw);
  return id > 0 && id <= MAX_ROW_ID ? id : null;
}
