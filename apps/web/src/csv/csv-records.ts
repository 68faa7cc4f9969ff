import Papa from 'papaparse'
import { detectDelimiter } from './detect-delimiter'

/**
 * A CSV file's records with the line of the file each starts on, read a batch at a time with
 * papaparse. A quoted field may run over several lines (an address), so the line of a record is
 * counted from where it starts in the text, not from how many records came before it.
 *
 * An opening quote that never closes makes papaparse read the rest of the file as one field: every
 * valid row after it would vanish into that record. Such a record is reported broken on the line it
 * starts, and reading goes on from the next line, so every line of the file is accounted for.
 */
export type CsvRecord = { line: number; cells: string[] } | { line: number; problem: string }

/** Where to read from: an offset into the text, and the line of the file that starts there. */
export interface CsvPosition {
  offset: number
  line: number
}

export interface CsvBatch {
  records: CsvRecord[]
  /** Where the next batch starts; null once the text is read. */
  next: CsvPosition | null
}

export const START_OF_FILE: CsvPosition = { offset: 0, line: 1 }

export function readCsvBatch(
  text: string,
  from: CsvPosition,
  options: { delimiter: string; maxRecords: number },
): CsvBatch {
  if (from.offset >= text.length) return { records: [], next: null }
  const records: CsvRecord[] = []
  let end = 0 // papaparse's cursor: where, relative to `from.offset`, the last record read ends
  let counted = { offset: from.offset, line: from.line }
  let resumeAt: CsvPosition | null | undefined
  // A sliced string in V8 shares the text's memory: no copy per batch.
  Papa.parse<string[]>(text.slice(from.offset), {
    delimiter: options.delimiter,
    skipEmptyLines: false,
    preview: options.maxRecords,
    step(result, parser) {
      const start = from.offset + end
      end = result.meta.cursor
      counted = advance(text, counted, start)
      if (result.errors.some((error) => error.code === 'MissingQuotes')) {
        records.push({
          line: counted.line,
          problem: 'broken row: a quoted field is opened and never closed (check the quotes on this line)',
        })
        const lineEnd = text.indexOf('\n', start)
        resumeAt = lineEnd === -1 ? null : { offset: lineEnd + 1, line: counted.line + 1 }
        parser.abort()
        return
      }
      const quotes = result.errors.find((error) => error.type === 'Quotes')
      if (quotes) records.push({ line: counted.line, problem: `broken row: ${quotes.message.toLowerCase()}` })
      else records.push({ line: counted.line, cells: result.data })
    },
  })
  if (resumeAt !== undefined) return { records, next: resumeAt }
  const nextOffset = from.offset + end
  if (records.length < options.maxRecords || nextOffset >= text.length) return { records, next: null }
  return { records, next: advance(text, counted, nextOffset) }
}

/** The line at `offset`, counting the newlines from a known position before it. */
function advance(text: string, known: CsvPosition, offset: number): CsvPosition {
  let line = known.line
  for (let at = text.indexOf('\n', known.offset); at !== -1 && at < offset; at = text.indexOf('\n', at + 1))
    line += 1
  return { offset, line }
}

/**
 * Every record of a whole text, read on the server (the suppression import): the delimiter guessed
 * from its first 64 KB, a byte-order mark dropped, and the newline that ends the last line not read
 * as one more blank record.
 */
export function readCsvText(text: string, options: { batchRecords?: number } = {}): CsvRecord[] {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text
  const delimiter = detectDelimiter(body.slice(0, 64 * 1024))
  const records: CsvRecord[] = []
  let position: CsvPosition | null = START_OF_FILE
  while (position !== null) {
    const batch = readCsvBatch(body, position, { delimiter, maxRecords: options.batchRecords ?? 5000 })
    records.push(...batch.records)
    position = batch.next
  }
  const last = records.at(-1)
  if (body.endsWith('\n') && last && 'cells' in last && last.cells.every((cell) => cell === '')) records.pop()
  return records
}
