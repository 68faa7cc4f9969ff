import { describe, expect, it } from 'vitest'
import { AppError } from '../errors/app-error'
import { prepareSuppressionRows, type SuppressionCsvRecord } from './suppression-csv'
import { suppressionDetailProblem } from './suppression-detail'

const file = (...lines: (string[] | { problem: string })[]): SuppressionCsvRecord[] =>
  lines.map((line, index) =>
    Array.isArray(line) ? { line: index + 1, cells: line } : { line: index + 1, ...line },
  )

function refusal(records: SuppressionCsvRecord[]): AppError {
  try {
    prepareSuppressionRows(records, 'all')
  } catch (error) {
    if (error instanceof AppError) return error
    throw error
  }
  throw new Error('the file was accepted')
}

describe('suppression CSV rows', () => {
  it('reads a header with email and detail, and accounts for every other line with its line number', () => {
    const prepared = prepareSuppressionRows(
      file(
        ['\uFEFFEmail', 'Detail', 'reason'],
        ['Ada@Example.com', '550 5.1.1 no such user', 'hard-bounce'],
        ['', '', ''],
        ['not-an-address', '', ''],
        ['ada@example.com', 'again', ''],
        ['', 'no address', ''],
        { problem: 'broken row: a quoted field is opened and never closed' },
        ['grace@example.com', 'x\ny', ''],
        ['linus@example.com', '', '', 'extra'],
        ["'-bob@example.com", "'=1+1", ''],
      ),
      'all',
    )
    expect(prepared.entries).toEqual([
      { line: 2, email: 'ada@example.com', reason: 'manual', scope: 'all', detail: '550 5.1.1 no such user' },
      { line: 10, email: '-bob@example.com', reason: 'manual', scope: 'all', detail: '=1+1' },
    ])
    expect(prepared.rejected).toEqual([
      { line: 4, email: 'not-an-address', reason: 'invalid email "not-an-address"' },
      { line: 6, email: null, reason: 'missing email' },
      { line: 7, email: null, reason: 'broken row: a quoted field is opened and never closed' },
      {
        line: 8,
        email: 'grace@example.com',
        reason: 'detail must be one line of text, without control characters',
      },
      {
        line: 9,
        email: 'linus@example.com',
        reason: expect.stringMatching(/^too many columns: 4, the header has 3/),
      },
    ])
    expect(prepared).toMatchObject({
      header: true,
      rows: 8,
      blank: 1,
      duplicates: 1,
      ignoredColumns: ['Not read (only email and detail are): reason'],
    })
  })

  it('reads a file without a header as one address per line', () => {
    const prepared = prepareSuppressionRows(
      file(['a@example.com'], ['b@example.com', ''], ['c@example.com', 'note'], ['nope']),
      'marketing',
    )
    expect(prepared.header).toBe(false)
    expect(prepared.entries.map((entry) => [entry.line, entry.email, entry.scope])).toEqual([
      [1, 'a@example.com', 'marketing'],
      [2, 'b@example.com', 'marketing'],
    ])
    expect(prepared.rejected.map((row) => [row.line, row.reason.slice(0, 24)])).toEqual([
      [3, 'more than one column: a '],
      [4, 'invalid email "nope"'],
    ])
  })

  it('refuses a header without an email column, or with two, naming `header`', () => {
    for (const records of [
      file(['address', 'name'], ['a@example.com', 'Ada']),
      file(['email;detail'], ['a@example.com;x']),
      file(['email', 'E-Mail'], ['a@example.com', 'b@example.com']),
    ]) {
      const error = refusal(records)
      expect(error.code).toBe('validation_failed')
      expect(error.details?.[0]?.path).toBe('header')
    }
    expect(refusal(file(['address', 'name'])).details?.[0]?.message).toContain('"address", "name"')
  })

  it('keeps details to one printable line of at most 1,000 characters', () => {
    expect(suppressionDetailProblem('550 5.1.1 <ada@example.com>: no such user')).toBeNull()
    expect(suppressionDetailProblem('a'.repeat(1001))).toMatch(/at most 1000/)
    expect(suppressionDetailProblem('tab\there')).toMatch(/control characters/)
  })
})
