import { fastestMs } from '@fairlane/testing/fastest-ms'
import { describe, expect, it } from 'vitest'
import { AppError } from '../errors/app-error'
import { formatFilter, parseFilterText } from './filter-text'
import { createdBoundary, filterIssues, parseSegmentFilter } from './segment-filter'

function issuesOf(run: () => unknown) {
  try {
    run()
  } catch (error) {
    if (error instanceof AppError) return { code: error.code, message: error.message, details: error.details }
    throw error
  }
  throw new Error('expected a validation error')
}

describe('parseSegmentFilter', () => {
  it('accepts every operator', () => {
    const filter = {
      conditions: [
        { op: 'equals', attribute: 'city', value: 'Berlin' },
        { op: 'not-equals', attribute: 'city', value: 'Paris' },
        { op: 'in', attribute: 'plan', values: ['pro', 'team'] },
        { op: 'exists', attribute: 'vip' },
        { op: 'created-before', date: '2026-06-01' },
        { op: 'created-after', date: '2026-01-01' },
      ],
    }
    expect(parseSegmentFilter(filter)).toEqual(filter)
  })

  it('names an unknown operator and where it is', () => {
    const error = issuesOf(() =>
      parseSegmentFilter({
        conditions: [
          { op: 'equals', attribute: 'a', value: 'x' },
          { op: 'like', attribute: 'city', value: 'B%' },
        ],
      }),
    )
    expect(error.code).toBe('validation_failed')
    expect(error.details).toEqual([
      { path: 'filter.conditions[1].op', message: expect.stringContaining('unknown operator "like"') },
    ])
    expect(error.details?.[0]?.message).toContain(
      'equals, not-equals, in, exists, created-before, created-after',
    )
  })

  it('names a bad attribute name, including one that tries to break out of SQL', () => {
    const error = issuesOf(() =>
      parseSegmentFilter({ conditions: [{ op: 'equals', attribute: "city') or true --", value: 'x' }] }),
    )
    expect(error.details).toEqual([
      {
        path: 'filter.conditions[0].attribute',
        message: expect.stringContaining(`"city') or true --" is not an attribute name`),
      },
    ])
  })

  it('refuses the contact’s own fields as attributes, a missing operator, bad dates, extra fields and empty lists', () => {
    expect(
      filterIssues({
        conditions: [
          { op: 'equals', attribute: 'email', value: 'x' },
          { attribute: 'city', value: 'x' },
          { op: 'created-after', date: '2026-02-30' },
          { op: 'in', attribute: 'plan', values: [] },
          { op: 'exists', attribute: 'vip', value: 'yes' },
        ],
      }).map((issue) => issue.path),
    ).toEqual([
      'conditions[0].attribute',
      'conditions[1].op',
      'conditions[2].date',
      'conditions[3].values',
      'conditions[4].value',
    ])
    expect(filterIssues({ conditions: [] })).toEqual([
      { path: 'conditions', message: 'must hold at least one condition' },
    ])
    expect(filterIssues('city = Berlin')[0]?.path).toBe('filter')
  })

  it('reads "created after" a day as from the next day on, "before" as before the day, in UTC', () => {
    expect(createdBoundary({ op: 'created-after', date: '2026-01-01' }).toISOString()).toBe(
      '2026-01-02T00:00:00.000Z',
    )
    expect(createdBoundary({ op: 'created-before', date: '2026-01-01' }).toISOString()).toBe(
      '2026-01-01T00:00:00.000Z',
    )
  })
})

describe('parseFilterText', () => {
  it('reads the typed conditions, joined by "and" or new lines', () => {
    const result = parseFilterText(
      'city = Berlin and plan in (pro, team)\nvip exists and created after 2026-01-01\nCity != "Sales and Marketing"',
    )
    expect(result).toEqual({
      ok: true,
      filter: {
        conditions: [
          { op: 'equals', attribute: 'city', value: 'Berlin' },
          { op: 'in', attribute: 'plan', values: ['pro', 'team'] },
          { op: 'exists', attribute: 'vip' },
          { op: 'created-after', date: '2026-01-01' },
          { op: 'not-equals', attribute: 'City', value: 'Sales and Marketing' },
        ],
      },
    })
  })

  it('names an unknown operator', () => {
    const result = parseFilterText('city = Berlin and city ~ Ber')
    expect(result).toEqual({
      ok: false,
      issues: [
        {
          path: 'filter',
          message: expect.stringContaining('Condition 2 (city ~ Ber): unknown operator "~"'),
        },
      ],
    })
    expect(parseFilterText('created since 2026-01-01')).toMatchObject({
      ok: false,
      issues: [{ message: expect.stringContaining('unknown operator "created since"') }],
    })
  })

  it('names a bad attribute name and a bad date', () => {
    const result = parseFilterText('ci-ty = Berlin\ncreated before 2026-13-01')
    expect(result.ok).toBe(false)
    const messages = result.ok ? [] : result.issues.map((issue) => issue.message)
    expect(messages[0]).toContain('Condition 1 (ci-ty = Berlin): "ci-ty" is not an attribute name')
    expect(messages[1]).toContain(
      'Condition 2 (created before 2026-13-01): date must be a date as YYYY-MM-DD',
    )
  })

  it('asks for a condition when the text is empty', () => {
    expect(parseFilterText('  \n ')).toMatchObject({ ok: false, issues: [{ path: 'filter' }] })
  })

  it('writes a filter back in the syntax it reads', () => {
    const text =
      'city = Berlin and plan in (pro, "a, b") and title != "Sales and Marketing" and note = "" and created before 2026-03-01'
    const parsed = parseFilterText(text)
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues))
    expect(formatFilter(parsed.filter)).toBe(text)
    expect(parseFilterText(formatFilter(parsed.filter))).toEqual(parsed)
  })

  it('reads a filter with a 50,000-character run of spaces in linear time', () => {
    const typed = `city = ${' '.repeat(50_000)}Berlin`
    expect(fastestMs(() => parseFilterText(typed))).toBeLessThan(50)
    expect(parseFilterText(`city = Berlin ${' '.repeat(50_000)} and\n  vip exists`)).toMatchObject({
      ok: true,
      filter: {
        conditions: [
          { attribute: 'city', value: 'Berlin' },
          { op: 'exists', attribute: 'vip' },
        ],
      },
    })
  })
})
