import { describe, expect, it } from 'vitest'
import { auditCursor, parseAuditFilter } from './audit-filter'

describe('parseAuditFilter', () => {
  it('reads an empty query as no filter', () => {
    expect(parseAuditFilter({})).toEqual({})
    expect(parseAuditFilter({ action: '', actor: ' ', from: '', to: '', cursor: '' })).toEqual({})
  })

  it('reads days in UTC, with `to` including its whole day', () => {
    expect(
      parseAuditFilter({ from: '2026-12-01', to: '2026-12-05', action: 'domain.add', actor: 'alice' }),
    ).toEqual({
      from: new Date('2026-12-01T00:00:00Z'),
      to: new Date('2026-12-06T00:00:00Z'),
      action: 'domain.add',
      actor: 'alice',
    })
  })

  it('takes back the cursor it gave out', () => {
    expect(parseAuditFilter({ cursor: auditCursor(1234) })).toEqual({ beforeId: 1234 })
  })

  it('refuses a bad field, naming it', () => {
    for (const [query, path] of [
      [{ from: '2026-13-01' }, 'from'],
      [{ to: 'yesterday' }, 'to'],
      [{ from: '2026-12-05', to: '2026-12-01' }, 'to'],
      [{ cursor: 'abc' }, 'cursor'],
      [{ cursor: Buffer.from('-1').toString('base64url') }, 'cursor'],
      [{ actor: 'x'.repeat(201) }, 'actor'],
    ] as const) {
      expect(() => parseAuditFilter(query), JSON.stringify(query)).toThrow(
        expect.objectContaining({ code: 'validation_failed', details: [expect.objectContaining({ path })] }),
      )
    }
  })
})
