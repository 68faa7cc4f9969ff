/**
 * CSV import limits. The browser parses the file and sends rows in batches, so the file size bounds
 * how long a tab works, not server memory; 25 MB is about half a million typical contacts. A 50 MB
 * export is refused with a message saying to split it, before any parsing starts.
 */
export const MAX_CSV_BYTES = 25 * 1024 * 1024
/** Rows per request from the importing browser: big enough to be quick, small enough for one transaction. */
export const CSV_BATCH_ROWS = 1000
/** A batch of 1,000 rows of 50 attributes stays well below this; it guards the route, not the user. */
export const MAX_CSV_BATCH_BYTES = 4 * 1024 * 1024

/** Null when the file may be imported, else the sentence to show. */
export function checkCsvFile(file: { name: string; size: number }): string | null {
  if (file.size === 0) return `${file.name} is empty.`
  if (file.size > MAX_CSV_BYTES) {
    return `${file.name} is ${formatMegabytes(file.size)}; the limit is ${formatMegabytes(MAX_CSV_BYTES)}. Split it into smaller files and import them one after another.`
  }
  return null
}

export function formatMegabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`
}
