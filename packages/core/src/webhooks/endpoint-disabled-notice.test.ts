import { describe, expect, it } from 'vitest'
import { endpointDisabledNotice } from './endpoint-disabled-notice'

describe('endpointDisabledNotice', () => {
  const notice = endpointDisabledNotice({
    url: 'https://hooks.example.com/in?a=1&b=<2>',
    failingSince: new Date('2026-12-01T08:30:00Z'),
    appUrl: 'https://app.fairlane.example/',
  })

  it('names the endpoint, since when it failed, and where to enable it again', () => {
    expect(notice.subject).toBe('Your webhook endpoint was disabled')
    expect(notice.text).toContain(
      'https://hooks.example.com/in?a=1&b=<2> has failed since 2026-12-01 08:30 UTC',
    )
    expect(notice.text).toContain('https://app.fairlane.example/webhooks')
  })

  it('escapes the URL in the HTML part', () => {
    expect(notice.html).toContain('in?a=1&#38;b=&#60;2&#62;')
    expect(notice.html).not.toContain('<2>')
  })
})
