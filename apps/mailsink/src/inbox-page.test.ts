import { describe, expect, it } from 'vitest'
import { authBadge, escapeHtml, renderInbox, renderMessage } from './inbox-page'
import type { StoredMessage } from './store'

const hostile: StoredMessage = {
  id: 'id-1',
  messageId: '<x@y>',
  from: '"<script>alert(1)</script>" <evil@example.com>',
  to: 'victim@example.com',
  recipients: ['victim@example.com'],
  subject: '<img src=x onerror=alert(1)>',
  text: '</pre><script>alert(2)</script>',
  html: '<p onclick="x">"quoted" & \'single\'</p><script>alert(3)</script>',
  headers: { 'x-evil': '<b>bold</b>' },
  receivedAt: '2024-05-01T12:00:00.000Z',
  envelope: { from: '<script>@example.com', to: ['victim@example.com'] },
  auth: { dkim: 'fail', dkimDomain: '<b>evil</b>.example.com', dkimReason: '<i>bad</i>' },
  receiver: { name: '<b>google</b>', address: '127.0.0.10', port: 2525 },
  sourceAddress: '127.0.0.2',
  tls: false,
}

describe('escapeHtml', () => {
  it('escapes the five significant characters', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;')
  })
})

describe('renderInbox', () => {
  it('escapes every message value and links rows to the view page', () => {
    const html = renderInbox([hostile], 1)
    expect(html).not.toContain('<script>')
    expect(html).not.toContain('<img')
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;')
    expect(html).toContain('href="/view/id-1"')
  })

  it("shows each message's DKIM verdict with its domain, escaped", () => {
    const html = renderInbox([hostile], 1)
    expect(html).toContain('<span class="badge fail"')
    expect(html).toContain('d=&lt;b&gt;evil&lt;/b&gt;.example.com')
    expect(html).not.toContain('<i>bad</i>')
  })

  it('names the receiver that took each message, escaped, and the usual listener as "sink"', () => {
    const html = renderInbox([hostile, { ...hostile, id: 'id-2', receiver: null }], 2)
    expect(html).toContain('<th>Receiver</th>')
    expect(html).toContain('>&lt;b&gt;google&lt;/b&gt;</a></td>')
    expect(html).toContain('title="&lt;b&gt;google&lt;/b&gt; (127.0.0.10:2525) from 127.0.0.2"')
    expect(html).toContain('title="the sink&#39;s usual listener from 127.0.0.2">sink</a></td>')
    expect(html).not.toContain('<b>google</b>')
  })

  it('says so when there are no messages', () => {
    expect(renderInbox([], 0)).toContain('No messages yet')
  })
})

describe('renderMessage', () => {
  it('puts the HTML body in a sandboxed srcdoc and escapes everything else', () => {
    const html = renderMessage(hostile)
    expect(html).not.toContain('<script>')
    expect(html).not.toContain('<b>bold</b>')
    expect(html).toContain('sandbox=""')
    expect(html).toContain(
      'srcdoc="&lt;p onclick=&quot;x&quot;&gt;&quot;quoted&quot; &amp; &#39;single&#39;&lt;/p&gt;&lt;script&gt;alert(3)&lt;/script&gt;"',
    )
  })

  it('leaves the iframe out when there is no HTML body', () => {
    expect(renderMessage({ ...hostile, html: null })).not.toContain('<iframe')
  })
})

describe('authBadge', () => {
  it('says pass with d= and the details in the title', () => {
    const badge = authBadge({
      dkim: 'pass',
      dkimDomain: 'shop.test',
      dkimSelector: 'fl202612abcd',
      spf: 'pass',
      spfDomain: 'fl-bounces.shop.test',
      dmarc: 'pass',
      aligned: true,
    })
    expect(badge).toContain('<span class="badge pass"')
    expect(badge).toContain('DKIM pass</span><span class="domain">d=shop.test</span>')
    expect(badge).toContain(
      'title="DKIM pass, d=shop.test s=fl202612abcd, SPF pass for fl-bounces.shop.test, DMARC pass, aligned with From"',
    )
  })

  it('says none, without a domain, for unsigned mail', () => {
    expect(authBadge({ dkim: 'none' })).toBe('<span class="badge none" title="DKIM none">DKIM none</span>')
  })
})
