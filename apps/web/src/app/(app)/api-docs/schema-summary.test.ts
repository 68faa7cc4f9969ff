import { describe, expect, it } from 'vitest'
import { constraints, typeLabel } from './schema-summary'

describe('schema summaries on the reference page', () => {
  it('names types, references, constants and unions in a few words', () => {
    expect(typeLabel({ type: 'string', format: 'uuid' })).toBe('string (uuid)')
    expect(typeLabel({ $ref: '#/components/schemas/Message' })).toBe('Message')
    expect(typeLabel({ type: 'string', const: 'queued' })).toBe('"queued"')
    expect(typeLabel({ type: 'array', items: { $ref: '#/components/schemas/Contact' } })).toBe(
      'array of Contact',
    )
    expect(typeLabel({ anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] })).toBe(
      'string (date-time) | null',
    )
  })

  it('says the bounds a caller needs, leaving out the safe-integer range and generated patterns', () => {
    expect(constraints({ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER })).toEqual(['≥ 0'])
    expect(constraints({ type: 'string', format: 'uuid', pattern: '^[0-9a-f-]+$' })).toEqual([])
    expect(constraints({ type: 'string', minLength: 1, maxLength: 254, pattern: '^x$' })).toEqual([
      'not empty',
      'at most 254 characters',
      'matches ^x$',
    ])
  })
})
