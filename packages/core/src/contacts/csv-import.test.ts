import { describe, expect, it } from 'vitest'
import { AppError } from '../errors/app-error'
import { type CsvColumns, readCsvHeader } from './csv-header'
import { checkCsvFile, MAX_CSV_BYTES } from './csv-limits'
import { csvRowToContact, prepareCsvRows } from './csv-rows'
import { importCsvRows } from './import-csv-rows'
import type { ContactUpserter } from './ports'

function columns(header: string[]): CsvColumns {
  const result = readCsvHeader(header)
  if (!result.ok) throw new Error(result.message)
  return result.columns
}

const rows = (...cells: string[][]) => cells.map((row, index) => ({ line: index + 2, cells: row }))

describe('CSV header', () => {
  it('finds email and name in any case and makes other columns attributes', () => {
    const result = columns(['\uFEFFName', 'EMAIL', 'First Name', 'plan', '2fa'])
    expect(result).toEqual({
      emailIndex: 1,
      nameIndex: 0,
      attributes: [
        { index: 2, key: 'First_Name' },
        { index: 3, key: 'plan' },
        { index: 4, key: '_2fa' },
      ],
      width: 5,
      ignored: [],
    })
  })

  it('says the delimiter is probably wrong when the header is one column without email', () => {
    const result = readCsvHeader(['mail;name'])
    expect(result.ok).toBe(false)
    if (!result.ok)
      expect(result.message).toMatch(/could not find an email column; is the delimiter right\?/i)
  })

  it('names what it found when several columns lack an email', () => {
    const result = readCsvHeader(['address', 'name'])
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining('"address"') })
  })

  it('refuses two email columns, clashing attribute names and too many columns', () => {
    expect(readCsvHeader(['email', 'Email']).ok).toBe(false)
    expect(readCsvHeader(['email', 'first name', 'first_name'])).toMatchObject({
      ok: false,
      message: expect.stringContaining('first_name'),
    })
    const wide = ['email', ...Array.from({ length: 51 }, (_, i) => `c${i}`)]
    expect(readCsvHeader(wide)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/too many columns/i),
    })
    expect(readCsvHeader(wide.slice(0, 51)).ok).toBe(true)
  })

  it('ignores an unnamed column and says so', () => {
    expect(columns(['email', '', 'city']).ignored).toEqual(['column 2 has no header and is ignored'])
  })
})

describe('CSV rows', () => {
  const header = columns(['email', 'name', 'city'])

  it('normalises a good row', () => {
    expect(csvRowToContact(header, ['  Ann@Example.TEST ', ' Ann ', 'Hanoi'])).toEqual({
      ok: true,
      contact: { email: 'ann@example.test', name: 'Ann', attributes: { city: 'Hanoi' } },
    })
    expect(csvRowToContact(header, ['bo@example.test', '', ''])).toEqual({
      ok: true,
      contact: { email: 'bo@example.test', name: null, attributes: {} },
    })
  })

  it('accepts short rows and trailing empty cells, refuses extra filled columns', () => {
    expect(csvRowToContact(header, ['a@b.test']).ok).toBe(true)
    expect(csvRowToContact(header, ['a@b.test', 'A', 'x', '', '']).ok).toBe(true)
    expect(csvRowToContact(header, ['a@b.test', 'Smith', ' Ann', 'Hanoi'])).toEqual({
      ok: false,
      reason: expect.stringMatching(/^too many columns: 4, the header has 3/),
    })
  })

  it('gives a reason for a missing or invalid email and an oversize name', () => {
    expect(csvRowToContact(header, ['', 'Ann', 'x'])).toEqual({ ok: false, reason: 'missing email' })
    expect(csvRowToContact(header, ['not-an-address', 'Ann'])).toEqual({
      ok: false,
      reason: 'invalid email "not-an-address"',
    })
    expect(csvRowToContact(header, ['a@b.test', 'x'.repeat(201)])).toEqual({
      ok: false,
      reason: 'name must be at most 200 characters',
    })
  })

  it('keeps the first of duplicate emails and reports the others with the first line', () => {
    const prepared = prepareCsvRows(
      header,
      rows(['a@b.test', 'First'], ['x@b.test'], ['A@B.test', 'Second'], [''], ['bad'], ['a@b.test']),
    )
    expect(prepared.contacts.map((contact) => [contact.line, contact.email, contact.name])).toEqual([
      [2, 'a@b.test', 'First'],
      [3, 'x@b.test', null],
    ])
    expect(prepared.rejected).toEqual([
      {
        line: 4,
        email: 'A@B.test',
        reason: expect.stringContaining('duplicate email, first seen on line 2'),
      },
      { line: 6, email: 'bad', reason: 'invalid email "bad"' },
      { line: 7, email: 'a@b.test', reason: expect.stringContaining('line 2') },
    ])
    expect(prepared.blank).toBe(1)
  })

  it('carries duplicates across batches through `seen`', () => {
    const seen = new Map<string, number>()
    prepareCsvRows(header, rows(['a@b.test']), seen)
    const second = prepareCsvRows(header, [{ line: 1002, cells: ['A@b.test'] }], seen)
    expect(second.rejected).toHaveLength(1)
    expect(second.contacts).toHaveLength(0)
  })
})

describe('CSV file limits', () => {
  it('refuses a 50 MB file and an empty one, with sizes in the message', () => {
    expect(checkCsvFile({ name: 'big.csv', size: 50 * 1024 * 1024 })).toMatch(
      /big\.csv is 50 MB; the limit is 25 MB/,
    )
    expect(checkCsvFile({ name: 'empty.csv', size: 0 })).toBe('empty.csv is empty.')
    expect(checkCsvFile({ name: 'ok.csv', size: MAX_CSV_BYTES })).toBeNull()
  })
})

describe('importCsvRows', () => {
  const written: unknown[] = []
  const store: ContactUpserter = {
    async upsertContacts({ contacts }) {
      written.push(...contacts)
      return { created: contacts.length, updated: 0 }
    },
  }

  it('upserts the good rows and returns the bad ones', async () => {
    const result = await importCsvRows(
      { tenantId: 't', header: ['Email', 'Name'], rows: rows(['a@b.test', 'A'], ['oops', 'B']) },
      { store },
    )
    expect(result).toMatchObject({
      created: 1,
      updated: 0,
      rejected: [{ line: 3, reason: 'invalid email "oops"' }],
    })
    expect(written).toEqual([{ email: 'a@b.test', name: 'A', attributes: {} }])
  })

  it('refuses the batch when the header has no email column', async () => {
    await expect(
      importCsvRows({ tenantId: 't', header: ['a;b'], rows: [] }, { store }),
    ).rejects.toBeInstanceOf(AppError)
  })
})
