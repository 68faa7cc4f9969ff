import { describe, expect, it } from 'vitest'
import { type CsvBatch, type CsvRecord, readCsvBatch, readCsvText, START_OF_FILE } from './csv-records'

function readAll(text: string, maxRecords = 1000): { records: CsvRecord[]; batches: number } {
  const records: CsvRecord[] = []
  let batches = 0
  let batch: CsvBatch = { records: [], next: START_OF_FILE }
  while (batch.next) {
    batch = readCsvBatch(text, batch.next, { delimiter: ',', maxRecords })
    records.push(...batch.records)
    batches += 1
  }
  return { records, batches }
}

const rowLines = (records: CsvRecord[]) => records.map((record) => record.line)

describe('readCsvBatch', () => {
  it('accounts for every line after an unterminated quote (300 rows, the quote on line 298)', () => {
    const lines = ['email,name']
    for (let row = 1; row <= 300; row += 1) {
      lines.push(row === 297 ? `"broken${row}@example.com,Someone` : `person${row}@example.com,Person ${row}`)
    }
    const { records } = readAll(`${lines.join('\n')}\n`)
    const dataRecords = records
      .slice(1)
      .filter((record) => !('cells' in record && record.cells.join('') === ''))
    expect(dataRecords).toHaveLength(300)
    expect(rowLines(dataRecords)).toEqual(Array.from({ length: 300 }, (_, index) => index + 2))
    expect(dataRecords[296]).toEqual({ line: 298, problem: expect.stringContaining('never closed') })
    for (const line of [299, 300, 301]) {
      expect(dataRecords[line - 2]).toEqual({
        line,
        cells: [`person${line - 1}@example.com`, `Person ${line - 1}`],
      })
    }
  })

  it('numbers records by the line they start on when a quoted field spans lines', () => {
    const text = 'email,address\na@example.com,"1 Main St\nSpringfield"\nb@example.com,short\n'
    const { records } = readAll(text)
    expect(records.slice(0, 3)).toEqual([
      { line: 1, cells: ['email', 'address'] },
      { line: 2, cells: ['a@example.com', '1 Main St\nSpringfield'] },
      { line: 4, cells: ['b@example.com', 'short'] },
    ])
  })

  it('reads in batches that together give the same records and lines', () => {
    const lines = ['email']
    for (let row = 1; row <= 2500; row += 1)
      lines.push(row % 500 === 0 ? `"x${row}\ny"` : `p${row}@example.com`)
    const text = `${lines.join('\r\n')}\r\n`
    const whole = readAll(text, 100_000)
    const batched = readAll(text, 100)
    expect(batched.batches).toBeGreaterThan(20)
    expect(batched.records).toEqual(whole.records)
    expect(whole.records.at(-3)).toEqual({ line: 2504, cells: ['p2499@example.com'] })
    expect(whole.records.at(-2)).toEqual({ line: 2505, cells: ['x2500\ny'] })
  })

  it('recovers from several unterminated quotes, and from one on the last line', () => {
    const text = 'email\n"a@example.com\nb@example.com\n"c@example.com\nd@example.com\n"e@example.com'
    const { records } = readAll(text)
    expect(records.map((record) => [record.line, 'cells' in record ? record.cells[0] : 'broken'])).toEqual([
      [1, 'email'],
      [2, 'broken'],
      [3, 'b@example.com'],
      [4, 'broken'],
      [5, 'd@example.com'],
      [6, 'broken'],
    ])
  })

  it('reads a whole text on the server: delimiter guessed, BOM dropped, the final newline not a record', () => {
    expect(
      readCsvText('\uFEFFemail;detail\r\na@example.com;x\r\n\r\nb@example.com;y\r\n', { batchRecords: 2 }),
    ).toEqual([
      { line: 1, cells: ['email', 'detail'] },
      { line: 2, cells: ['a@example.com', 'x'] },
      { line: 3, cells: [''] },
      { line: 4, cells: ['b@example.com', 'y'] },
    ])
    expect(readCsvText('a@example.com')).toEqual([{ line: 1, cells: ['a@example.com'] }])
  })
})
