import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { QuotaBars } from './quota-bars'

const render = (
  quota: { daily: number | null; monthly: number | null },
  usedToday: number,
  usedThisMonth: number,
) => renderToStaticMarkup(createElement(QuotaBars, { quota, usage: { usedToday, usedThisMonth } }))

describe('the dashboard’s quota bars', () => {
  it('shows nothing without a quota', () => {
    expect(render({ daily: null, monthly: null }, 5, 50)).toBe('')
  })

  it('shows today’s and this month’s use against each quota that is set, as meters', () => {
    const html = render({ daily: 1000, monthly: 20000 }, 250, 12345)
    expect(html).toContain('250 of 1,000')
    expect(html).toContain('12,345 of 20,000')
    expect(html.match(/<meter/g)).toHaveLength(2)
    expect(html).toContain('value="250"')
    expect(html).toContain('max="1000"')

    const monthlyOnly = render({ daily: null, monthly: 100 }, 3, 120)
    expect(monthlyOnly).not.toContain('Today (UTC)')
    // A full bar stays full: the meter's value never passes its max.
    expect(monthlyOnly).toContain('value="100"')
    expect(monthlyOnly).toContain('120 of 100')
  })
})
