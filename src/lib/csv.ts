/** One CSV cell: quoted when it must be, and never a formula a spreadsheet would run (=, +, -, @ first). */
export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s = String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Rows as CSV (CRLF line ends, a header row first). */
export function csvOf(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  return `${[header.join(','), ...rows.map((r) => r.map(csvCell).join(','))].join('\r\n')}\r\n`;
}
