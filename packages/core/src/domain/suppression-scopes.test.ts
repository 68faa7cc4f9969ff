import { describe, expect, it } from 'vitest'
import { LANES } from './lanes'
import { SUPPRESSION_REASONS } from './statuses'
import { scopeForReason, suppressionStops, widerScope } from './suppression-scopes'

describe('suppression scopes', () => {
  it('gives an unsubscribe the marketing scope and every other reason all lanes', () => {
    const scopes = Object.fromEntries(SUPPRESSION_REASONS.map((reason) => [reason, scopeForReason(reason)]))
    expect(scopes).toEqual({
      'hard-bounce': 'all',
      complaint: 'all',
      manual: 'all',
      unsubscribe: 'marketing',
    })
  })

  it('stops only campaign (bulk) mail for a marketing suppression, every lane for all', () => {
    const stopped = (scope: 'all' | 'marketing' | null) =>
      LANES.filter((lane) => suppressionStops(scope, lane))
    expect(stopped('marketing')).toEqual(['bulk'])
    expect(stopped('all')).toEqual(['critical', 'default', 'bulk'])
    expect(stopped(null)).toEqual([])
  })

  it('keeps the wider scope when two meet', () => {
    expect(widerScope('marketing', 'all')).toBe('all')
    expect(widerScope('all', 'marketing')).toBe('all')
    expect(widerScope('marketing', 'marketing')).toBe('marketing')
  })
})
