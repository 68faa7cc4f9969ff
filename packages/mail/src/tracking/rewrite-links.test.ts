import { describe, expect, it } from 'vitest'
import { renderCampaignMessage } from '../campaign/render-campaign-message'
import { isTrackableUrl, trackableUrls, trackHtml } from './rewrite-links'

const APP = 'https://app.example.com'
const UNSUBSCRIBE = `${APP}/u/AbCdEf0123456789`
const click = (url: string) => `${APP}/t/c/${Buffer.from(url).toString('base64url').slice(0, 12)}`
const everyLink = { clickUrl: click }

describe('trackHtml', () => {
  it('rewrites only the href values, keeping every other byte (entities, quoting, case, spacing)', () => {
    const html =
      '<p>Hi &amp; welcome&nbsp;!</p>\n' +
      '<a HREF="https://a.example/?x=1&amp;y=2" class="btn">A</a>\n' +
      "<a href='https://b.example/path'>B</a>\n" +
      '<a href=https://c.example/x>C</a>\n' +
      '<A Class=x href = "https://d.example" >D</A>'
    const tracked = trackHtml(html, everyLink)
    const expected = html
      .replace('https://a.example/?x=1&amp;y=2', click('https://a.example/?x=1&y=2'))
      .replace('https://b.example/path', click('https://b.example/path'))
      .replace('https://c.example/x', click('https://c.example/x'))
      .replace('https://d.example', click('https://d.example'))
    expect(tracked).toBe(expected)
  })

  it('leaves mailto, tel, anchors, relative links, placeholders and links in comments alone', () => {
    const html =
      '<a href="mailto:sales@example.com?subject=Hi&amp;body=x">mail</a>' +
      '<a href="tel:+3312345678">call</a><a href="#top">top</a><a href="/relative">rel</a>' +
      '<a href="{{url}}">var</a><a href="https://x.example/?id={{contact.id}}">mixed</a>' +
      '<!-- <a href="https://commented.example">old</a> -->' +
      '<!--[if mso]><a href="https://mso.example">x</a><![endif]-->' +
      '<script>var a = \'<a href="https://script.example">\'</script>' +
      '<img src="https://img.example/a.png"><link href="https://css.example/a.css">'
    expect(trackHtml(html, everyLink)).toBe(html)
  })

  it('keeps the unsubscribe link of a rendered campaign, and tracks the rest', () => {
    const rendered = renderCampaignMessage({
      campaign: {
        subject: 'News',
        html:
          '<html><body><p>Hi {{name}}</p><a href="https://shop.example/sale?a=1&amp;b=2">Sale</a>' +
          '<a href="mailto:help@shop.example">Help</a></body></html>',
      },
      contact: { email: 'jane@example.com', name: 'Jane', attributes: {} },
      unsubscribeUrl: UNSUBSCRIBE,
    })
    const campaignLinks = new Set(trackableUrls(rendered.html, (url) => url.startsWith(`${APP}/u/`)))
    expect([...campaignLinks]).toEqual(['https://shop.example/sale?a=1&b=2'])
    const tracked = trackHtml(rendered.html, {
      clickUrl: (url) => (campaignLinks.has(url) ? click(url) : null),
      pixelUrl: `${APP}/t/o/pixel-token`,
    })
    expect(tracked).toContain(`href="${UNSUBSCRIBE}"`)
    expect(tracked).toContain('href="mailto:help@shop.example"')
    expect(tracked).toContain(`href="${click('https://shop.example/sale?a=1&b=2')}"`)
    expect(tracked).not.toContain('shop.example/sale')
    expect(tracked).toMatch(
      /<img src="https:\/\/app\.example\.com\/t\/o\/pixel-token" width="1" height="1" alt="" [^>]*\/><\/body><\/html>$/,
    )
  })

  it('appends the pixel when there is no </body>, and puts it before the last real one', () => {
    const pixelUrl = `${APP}/t/o/p`
    expect(trackHtml('<p>x</p>', { pixelUrl })).toMatch(
      /^<p>x<\/p><img src="https:\/\/app\.example\.com\/t\/o\/p"/,
    )
    const html = '<body><!-- </body> --><p>x</p></BODY>'
    const tracked = trackHtml(html, { pixelUrl })
    expect(tracked.startsWith('<body><!-- </body> --><p>x</p><img ')).toBe(true)
    expect(tracked.endsWith('/></BODY>')).toBe(true)
  })

  it('escapes a replacement so it cannot end the attribute', () => {
    const tracked = trackHtml('<a href="https://a.example">a</a>', { clickUrl: () => 'https://x/"><script>' })
    expect(tracked).toBe('<a href="https://x/&quot;&gt;&lt;script&gt;">a</a>')
  })

  it('changes nothing when neither clicks nor opens are tracked', () => {
    const html = '<a href="https://a.example">a</a></body>'
    expect(trackHtml(html, {})).toBe(html)
  })
})

describe('isTrackableUrl', () => {
  it('accepts absolute http(s) URLs only', () => {
    expect(isTrackableUrl('https://a.example/x')).toBe(true)
    expect(isTrackableUrl('HTTP://A.EXAMPLE')).toBe(true)
    for (const url of [
      'mailto:a@b.c',
      'tel:1',
      '#x',
      '/x',
      'javascript:alert(1)',
      'https://{{host}}/x',
      'https://',
    ]) {
      expect(isTrackableUrl(url), url).toBe(false)
    }
  })
})
