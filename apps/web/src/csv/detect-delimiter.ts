import Papa from 'papaparse'

const CANDIDATES = [',', ';', '\t'] as const

/**
 * Picks the delimiter from the file's first lines. papaparse's own guess counts blank lines, so a
 * short file with a trailing newline (`a;b\n1;2\n`) falls back to a comma; here blank lines are left
 * out and the candidate giving the same number of fields (more than one) on every line wins. No
 * winner means a comma: the header then reads as one column and the import explains that.
 */
export function detectDelimiter(sample: string): string {
  let best: { delimiter: string; fields: number } | null = null
  for (const delimiter of CANDIDATES) {
    const { data } = Papa.parse<string[]>(sample, { delimiter, preview: 10, skipEmptyLines: 'greedy' })
    // The sample may end mid-line; judge on complete lines when there are several.
    const rows = data.length > 2 ? data.slice(0, -1) : data
    const counts = new Set(rows.map((row) => row.length))
    const fields = rows[0]?.length ?? 0
    if (counts.size === 1 && fields > 1 && (best === null || fields > best.fields))
      best = { delimiter, fields }
  }
  return best?.delimiter ?? ','
}
