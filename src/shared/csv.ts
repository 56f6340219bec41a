// Writing CSV cells, for every CSV this app sends (a link's clicks, the links export). On the
// ground floor: the analytics report and the links export both write cells, neither owns them.

/** RFC 4180 quoting, plus a leading quote on cells a spreadsheet would run as a formula. */
export function csvCell(v: string | null | undefined) {
  let s = v ?? "";
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
