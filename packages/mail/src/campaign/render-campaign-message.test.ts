import { describe, expect, it } from 'vitest'
import { renderCampaignMessage } from './render-campaign-message'
import { findUnknownVariables, templateSyntaxError } from './variables'

const contact = {
  email: 'jane@example.com',
  name: 'Jane',
  attributes: { city: 'Hà Nội', plan: 'pro', email: 'spoof@evil.test' },
}
const unsubscribeUrl = 'https://mail.example.com/u/abc_DEF-123'

const render = (campaign: { subject: string; html: string; text?: string }, overrides = {}) =>
  renderCampaignMessage({ campaign, contact, unsubscribeUrl, ...overrides })

describe('renderCampaignMessage', () => {
  it('fills email, name, attributes (nested and flattened); contact fields win over attributes', () => {
    const out = render({
      subject: 'Hi {{name}}',
      html: '<p>{{name}} <{{email}}> in {{city}} / {{attributes.city}} on {{attributes.plan}}</p>',
    })
    expect(out.subject).toBe('Hi Jane')
    expect(out.html).toContain('<p>Jane <jane@example.com> in Hà Nội / Hà Nội on pro</p>')
  })

  it('escapes contact data in HTML, even inside triple mustaches', () => {
    const evil = {
      ...contact,
      name: '<script>alert(1)</script>',
      attributes: { bio: '<img src=x onerror=alert(1)>' },
    }
    const out = renderCampaignMessage({
      campaign: {
        subject: 'Hi {{name}}',
        html: '<p>{{name}}</p><p>{{{bio}}}</p><p>{{& attributes.bio}}</p>',
      },
      contact: evil,
      unsubscribeUrl,
    })
    expect(out.html).not.toContain('<script>')
    expect(out.html).not.toContain('<img')
    expect(out.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(out.html).toContain('&lt;img src=x onerror=alert(1)&gt;')
    // The subject is not HTML: the value goes in as typed.
    expect(out.subject).toBe('Hi <script>alert(1)</script>')
  })

  it('does not escape the text part and strips line breaks from the subject', () => {
    const out = renderCampaignMessage({
      campaign: { subject: 'News for {{name}}', html: '<p>x</p>', text: 'Dear {{name}} & co' },
      contact: { ...contact, name: 'Tom & Jerry\r\nBcc: victim@example.com' },
      unsubscribeUrl,
    })
    expect(out.subject).toBe('News for Tom & Jerry Bcc: victim@example.com')
    expect(out.subject).not.toMatch(/[\r\n]/)
    expect(out.text).toContain('Dear Tom & Jerry\r\nBcc: victim@example.com & co')
  })

  it('renders unknown variables empty', () => {
    const out = render({ subject: 'Hi {{nickname}}!', html: '<p>[{{nickname}}]</p>' })
    expect(out.subject).toBe('Hi !')
    expect(out.html).toContain('<p>[]</p>')
  })

  it('generates the text part from the HTML when none is given, with the footer', () => {
    const out = render({
      subject: 'x',
      html: '<h1>Spring sale</h1><p>Hello {{name}}, <a href="https://shop.test">shop</a></p>',
    })
    expect(out.text).toContain('Spring sale')
    expect(out.text).toContain('Hello Jane, shop [https://shop.test]')
    expect(out.text).toMatch(/--\nUnsubscribe: https:\/\/mail\.example\.com\/u\/abc_DEF-123\n$/)
  })

  it('adds the unsubscribe footer before </body> when there is one, else at the end', () => {
    const inBody = render({ subject: 'x', html: '<html><body><p>hi</p></body></html>' })
    expect(inBody.html).toMatch(
      /<a href="https:\/\/mail\.example\.com\/u\/abc_DEF-123">Unsubscribe<\/a><\/p><\/body><\/html>$/,
    )
    const bare = render({ subject: 'x', html: '<p>hi</p>' })
    expect(bare.html.startsWith('<p>hi</p>')).toBe(true)
    expect(bare.html).toContain(`href="${unsubscribeUrl}"`)
  })

  it('sets List-Unsubscribe (https, plus mailto when configured) and the RFC 8058 one-click header', () => {
    expect(render({ subject: 'x', html: 'y' }).headers).toEqual({
      'List-Unsubscribe': `<${unsubscribeUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    })
    const withMailto = render(
      { subject: 'x', html: 'y' },
      { unsubscribeMailto: 'mailto:unsub@example.com?subject=abc' },
    )
    expect(withMailto.headers['List-Unsubscribe']).toBe(
      `<${unsubscribeUrl}>, <mailto:unsub@example.com?subject=abc>`,
    )
  })

  it('refuses an unsubscribe URL that would break the header', () => {
    expect(() =>
      render({ subject: 'x', html: 'y' }, { unsubscribeUrl: 'https://x.test/u/a>\r\nBcc: y' }),
    ).toThrow(TypeError)
  })
})

describe('findUnknownVariables / templateSyntaxError', () => {
  it('lists the variables the sample contact lacks', () => {
    const template =
      '{{name}} {{email}} {{city}} {{attributes.plan}} {{nickname}} {{attributes.vip}} {{#nickname}}{{x}}{{/nickname}}'
    expect(findUnknownVariables(template, contact)).toEqual(['nickname', 'attributes.vip'])
    expect(findUnknownVariables('Hello {{name}}', { email: 'a@b.c', name: null, attributes: {} })).toEqual([])
  })

  it('reports syntax errors', () => {
    expect(templateSyntaxError('Hello {{name}}')).toBeNull()
    expect(templateSyntaxError('Hello {{#list}}x')).toMatch(/Unclosed section/)
    expect(findUnknownVariables('Hello {{#list}}x', contact)).toEqual([])
  })
})
