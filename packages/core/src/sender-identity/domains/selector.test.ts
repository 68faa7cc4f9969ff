import { describe, expect, it } from 'vitest'
import { newDkimSelector } from './selector'

describe('newDkimSelector', () => {
  it('is fl + year and month + 4 base32 characters, different each time', () => {
    const now = new Date('2026-12-03T10:00:00Z')
    const selector = newDkimSelector(now)
    expect(selector).toMatch(/^fl202612[a-z2-7]{4}$/)
    const many = new Set(Array.from({ length: 50 }, () => newDkimSelector(now)))
    expect(many.size).toBeGreaterThan(45)
  })
})
