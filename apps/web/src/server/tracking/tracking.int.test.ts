import type { AddressInfo } from 'node:net'
import { signTrackingToken, trackingKey } from '@fairlane/core'
import { upsertTrackedLinks } from '@fairlane/db/queries/tracking'
import {
  startTestPipeline,
  TEST_UNSUBSCRIBE_SECRETS,
  type TestPipeline,
} from '@fairlane/delivery/testing/pipeline'
import { startTestSink } from '@fairlane/delivery/testing/sink'
import { createEndpoint, startReceiver, type TestReceiver } from '@fairlane/delivery/testing/webhooks'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadCampaignEngagement } from '../campaigns/campaign-engagement'
import { createRouter } from '../fast-path/router'
import { createWebServer, listen, type WebServer } from '../fast-path/web-server'
import { API_ROUTES } from '../routes'
import { createWebHarness, seedTenant, TEST_APP_ORIGIN, type WebHarness } from '../test-support/harness'
import { clickRedirect, openPixel } from './tracking-routes'

/**
 * Open and click tracking end to end in one process: the API schedules a tracked campaign, the
 * worker's real pipeline renders and sends it to the sink, and the test follows the pixel and the
 * links of the mail it fetches from the sink's HTTP inbox through the web entry's real routes.
 */
const env = setupTestEnvironment('web-tracking')
const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36'
const key = trackingKey(TEST_UNSUBSCRIBE_SECRETS)

let harness: WebHarness
let sink: MailSink
let web: WebServer
let base: string
let pipeline: TestPipeline
let receiver: TestReceiver

beforeAll(async () => {
  harness = createWebHarness(env)
  sink = await startTestSink()
  receiver = await startReceiver()
  web = createWebServer({
    router: createRouter(Object.values(API_ROUTES)),
    deps: {
      api: harness.apiDeps(),
      admin: harness.adminDeps(),
      database: harness.database,
      redis: harness.redis,
      auth: harness.auth,
      logger: harness.logger,
      tracking: harness.trackingDeps({ secrets: TEST_UNSUBSCRIBE_SECRETS }),
    },
    logger: harness.logger,
    fallback: async (_req, res) => void res.writeHead(404).end(),
    origin: TEST_APP_ORIGIN,
  })
  await listen(web.server, '127.0.0.1', 0)
  base = `http://127.0.0.1:${(web.server.address() as AddressInfo).port}`
  pipeline = await startTestPipeline(env, sink, {
    appUrl: base,
    webhooks: {
      concurrency: 4,
      endpointConcurrency: 2,
      tenantConcurrency: 4,
      timeoutMs: 2_000,
      allowPrivate: true,
      tenantPlan: { ratePerSec: 100, burst: 100 },
      retryScheduleMs: [100, 200],
      park: { baseMs: 300, maxMs: 1_000 },
      pollMs: 100,
    },
  })
})

afterAll(async () => {
  await pipeline?.stop()
  await web?.close()
  await receiver?.close()
  await sink?.close()
  await harness?.close()
})

const api = (apiKey: string, method: string, path: string, body?: unknown) =>
  fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })

/** The mail as the sink's HTTP inbox has it. */
async function receivedHtml(to: string): Promise<string> {
  return eventually(
    async () => {
      const response = await fetch(`http://127.0.0.1:${sink.httpPort}/messages?to=${encodeURIComponent(to)}`)
      const [mail] = (await response.json()) as { html: string | null }[]
      return mail?.html ?? undefined
    },
    { what: `mail to ${to}`, timeoutMs: 20_000 },
  )
}

interface WebhookBody {
  type: string
  data: {
    messageId: string
    to: string
    campaignId: string | null
    first?: boolean
    bot?: boolean
    url?: string
  }
}

const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1] as string)
const pixelOf = (html: string) => html.match(/<img src="([^"]*\/t\/o\/[^"]*)"/)?.[1] as string

async function eventsOf(messageId: string) {
  return harness.database.sql<{ type: string; detail: Record<string, unknown> }[]>`
    select type, detail from message_events
    where message_id = ${messageId} and type in ('opened', 'clicked') order by id`
}

/** The webhook deliveries the outbox trigger wrote for the message. */
async function deliveriesOf(messageId: string) {
  return harness.database.sql<{ event_type: string }[]>`
    select event_type from webhook_deliveries where message_id = ${messageId}`
}

/** Runs `hit` `times` times, `concurrency` at once: as a flood of requests reaches the route. */
async function flood(times: number, concurrency: number, hit: () => Promise<Response>) {
  let started = 0
  const statuses: number[] = []
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < times) {
        started += 1
        statuses.push((await hit()).status)
      }
    }),
  )
  return statuses
}

async function messageIdOf(to: string): Promise<string> {
  const [row] = await harness.database.sql<{ id: string }[]>`select id from messages where to_address = ${to}`
  return row?.id as string
}

async function campaignCounts(apiKey: string, campaignId: string) {
  const response = await api(apiKey, 'GET', `/api/v1/campaigns/${campaignId}`)
  return ((await response.json()) as { counts: Record<string, number> }).counts
}

describe('open and click tracking', () => {
  const SALE = 'https://shop.example/sale?a=1&b=2'
  let apiKey: string
  let tenantId: string
  let campaignId: string
  let webhookSecret: string
  const jane = `jane-${Date.now()}@example.com`
  const bob = `bob-${Date.now()}@example.com`

  beforeAll(async () => {
    ;({ apiKey, tenantId } = await seedTenant(harness, 'Tracked Shop'))
    ;({ secret: webhookSecret } = await createEndpoint(harness.database.db, {
      tenantId,
      url: receiver.url,
      events: ['email.opened', 'email.clicked'],
    }))
    const contacts = await api(apiKey, 'POST', '/api/v1/contacts', {
      contacts: [
        { email: jane, name: 'Jane' },
        { email: bob, name: 'Bob' },
      ],
    })
    expect(contacts.status).toBe(200)
    const created = await api(apiKey, 'POST', '/api/v1/campaigns', {
      name: 'Sale',
      subject: 'Sale for {{name}}',
      html:
        '<html><body><p>Hi {{name}} &amp; welcome</p>' +
        '<a href="https://shop.example/sale?a=1&amp;b=2">Sale</a> ' +
        '<a href="mailto:help@shop.example">Help</a> <a href="#top">Top</a></body></html>',
      sendAt: new Date(Date.now() + 1_000).toISOString(),
      tracking: { opens: true, clicks: true },
    })
    expect(created.status).toBe(201)
    campaignId = ((await created.json()) as { id: string }).id
    // Hits before the send is recorded count as a scanner's: wait for it.
    await eventually(
      async () => {
        const counts = await campaignCounts(apiKey, campaignId)
        return counts.sent === 2 ? counts : undefined
      },
      { what: 'campaign sent', timeoutMs: 30_000 },
    )
  })

  it('rewrites the links but not the unsubscribe, mailto and anchor links, and adds the pixel', async () => {
    const html = await receivedHtml(jane)
    expect(html).not.toContain('shop.example/sale')
    expect(html).toContain('Hi Jane &amp; welcome')
    const links = hrefs(html)
    expect(links.filter((href) => href.startsWith(`${base}/t/c/`))).toHaveLength(1)
    expect(links).toContain('mailto:help@shop.example')
    expect(links).toContain('#top')
    expect(links.some((href) => href.startsWith(`${base}/u/`))).toBe(true)
    expect(pixelOf(html)).toMatch(new RegExp(`^${base}/t/o/[A-Za-z0-9_-]{47}$`))
  })

  it('records the open and the click, redirects to the original URL and counts them once', async () => {
    const html = await receivedHtml(jane)
    const messageId = await messageIdOf(jane)
    const pixel = await fetch(pixelOf(html), { headers: { 'user-agent': BROWSER } })
    expect(pixel.status).toBe(200)
    expect(pixel.headers.get('content-type')).toBe('image/gif')
    expect(pixel.headers.get('cache-control')).toContain('no-store')
    expect((await pixel.arrayBuffer()).byteLength).toBe(42)
    const link = hrefs(html).find((href) => href.startsWith(`${base}/t/c/`)) as string
    for (let click = 0; click < 2; click++) {
      const response = await fetch(link, { redirect: 'manual', headers: { 'user-agent': BROWSER } })
      expect(response.status).toBe(302)
      expect(response.headers.get('location')).toBe(SALE)
    }
    const events = await eventsOf(messageId)
    // The second click is the same link's within the hour: counted on the first event, not written.
    expect(events.map((event) => event.type)).toEqual(['opened', 'clicked'])
    expect(events[0]?.detail).toEqual({ bot: false, first: true, userAgent: BROWSER })
    expect(events[1]?.detail).toMatchObject({ url: SALE, bot: false, first: true, repeats: 1 })
    expect(await campaignCounts(apiKey, campaignId)).toMatchObject({ sent: 2, opened: 1, clicked: 1 })
    const [clicks] = await harness.database.sql<{ clicks: number; bot_clicks: number }[]>`
      select clicks, bot_clicks from link_clicks where message_id = ${messageId}`
    expect(clicks).toEqual({ clicks: 2, bot_clicks: 0 })
  })

  it("posts the open and the click to the tenant's endpoint, signed, as email.opened and email.clicked", async () => {
    const messageId = await messageIdOf(jane)
    const verifier = new Webhook(webhookSecret)
    const posted = await eventually(
      async () => {
        const bodies = receiver.received.map(
          (request) => verifier.verify(request.body, request.headers) as WebhookBody,
        )
        const mine = bodies.filter((body) => body.data.messageId === messageId)
        return mine.length >= 2 ? mine : undefined
      },
      { what: "jane's two webhooks", timeoutMs: 20_000 },
    )
    const summary = posted.map((body) => [body.type, body.data.first, body.data.bot, body.data.url ?? null])
    expect(summary).toHaveLength(2)
    expect(summary).toEqual(
      expect.arrayContaining([
        ['email.opened', true, false, null],
        ['email.clicked', true, false, SALE],
      ]),
    )
    expect(await deliveriesOf(messageId)).toHaveLength(2)
    expect(posted.every((body) => body.data.to === jane && body.data.campaignId === campaignId)).toBe(true)
    expect(new Set(receiver.received.map((request) => request.headers['webhook-id'])).size).toBe(
      receiver.received.length,
    )
  })

  it('flags a bot user agent: the event is written, the unique counts do not move', async () => {
    const html = await receivedHtml(bob)
    const messageId = await messageIdOf(bob)
    const bot = { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' }
    expect((await fetch(pixelOf(html), { headers: bot })).status).toBe(200)
    const link = hrefs(html).find((href) => href.startsWith(`${base}/t/c/`)) as string
    expect((await fetch(link, { redirect: 'manual', headers: bot })).status).toBe(302)
    const events = await eventsOf(messageId)
    expect(events.map((event) => [event.type, event.detail.bot, event.detail.first])).toEqual([
      ['opened', true, false],
      ['clicked', true, false],
    ])
    expect(await campaignCounts(apiKey, campaignId)).toMatchObject({ opened: 1, clicked: 1 })
  })

  it('flags a hit within the scanner window after the send as a bot', async () => {
    const html = await receivedHtml(bob)
    const messageId = await messageIdOf(bob)
    // Two hours on: a window of its own, so the hit is an event of its own rather than a repeat of
    // the bot's above; the send is still within the (three-hour) scanner window.
    const later = new Date(Date.now() + 2 * 3_600_000)
    const deps = harness.trackingDeps({
      secrets: TEST_UNSUBSCRIBE_SECRETS,
      scannerWindowMs: 3 * 3_600_000,
      now: () => later,
    })
    const pixel = pixelOf(html)
    const response = await openPixel(
      new Request(pixel, { headers: { 'user-agent': BROWSER } }),
      pixel.slice(`${base}/t/o/`.length),
      deps,
    )
    expect(response.status).toBe(200)
    const last = (await eventsOf(messageId)).at(-1)
    expect(last?.detail).toMatchObject({ bot: true, first: false, userAgent: BROWSER })
    expect(await campaignCounts(apiKey, campaignId)).toMatchObject({ opened: 1 })
  })

  it('gives the campaign page its figures, per-link clicks and opens over time', async () => {
    const engagement = await loadCampaignEngagement(harness.database.db, {
      tenantId,
      campaignId,
      timeZone: 'UTC',
    })
    expect(engagement).toMatchObject({ delivered: 2, opened: 1, clicked: 1, bounced: 0, unsubscribed: 0 })
    expect(engagement.links).toEqual([expect.objectContaining({ url: SALE, clicks: 2, uniqueClicks: 1 })])
    expect(engagement.opens.unit).toBe('minute')
    expect(engagement.opens.points).toEqual([{ label: expect.stringMatching(/^\d\d:\d\d UTC$/), opens: 1 }])
  })

  it('answers 404 and writes nothing for a forged token or one naming another tenant’s link', async () => {
    const html = await receivedHtml(jane)
    const messageId = await messageIdOf(jane)
    const before = (await eventsOf(messageId)).length
    const link = hrefs(html).find((href) => href.startsWith(`${base}/t/c/`)) as string
    const token = link.slice(`${base}/t/c/`.length)
    const forged = `${token.slice(0, 25)}${token[25] === 'A' ? 'B' : 'A'}${token.slice(26)}`
    const other = await seedTenant(harness, 'Other')
    const links = await upsertTrackedLinks(harness.database.db, {
      tenantId: other.tenantId,
      campaignId: null,
      urls: ['https://evil.example/'],
    })
    const foreign = signTrackingToken(
      { kind: 'click', messageId, linkId: links.get('https://evil.example/') as number },
      key,
    )
    for (const url of [
      `${base}/t/c/${forged}`,
      `${base}/t/c/${foreign}`,
      `${base}/t/o/${forged}`,
      `${base}/t/c/${signTrackingToken({ kind: 'open', messageId }, key)}`,
      `${base}/t/o/not-a-token`,
    ]) {
      const response = await fetch(url, { redirect: 'manual', headers: { 'user-agent': BROWSER } })
      expect(response.status, url).toBe(404)
      expect(response.headers.get('location')).toBeNull()
    }
    expect(await eventsOf(messageId)).toHaveLength(before)
    expect(tenantId).not.toBe(other.tenantId)
  })

  describe('a flood of hits on one token', () => {
    /** One instant for every hit of the flood (after the send, so no hit is a scanner's): one window. */
    let now: Date
    const deps = () => harness.trackingDeps({ secrets: TEST_UNSUBSCRIBE_SECRETS, now: () => now })
    let messageId: string

    beforeAll(async () => {
      const to = `flooded-${Date.now()}@example.com`
      const response = await api(apiKey, 'POST', '/api/v1/messages', {
        to,
        subject: 'Hi',
        html: '<p>Hi</p>',
        tracking: { opens: true },
      })
      expect(response.status).toBe(202)
      await receivedHtml(to)
      messageId = await messageIdOf(to)
      await eventually(
        async () => {
          const [row] = await harness.database.sql<{ sent_at: Date | null }[]>`
            select sent_at from messages where id = ${messageId}`
          return row?.sent_at ?? undefined
        },
        { what: 'the send recorded' },
      )
      now = new Date()
    })

    it('1,000 opens are one opened event, counted, and one webhook delivery', async () => {
      const token = signTrackingToken({ kind: 'open', messageId }, key)
      const pixel = `${base}/t/o/${token}`
      const statuses = await flood(1_000, 10, () =>
        openPixel(new Request(pixel, { headers: { 'user-agent': BROWSER } }), token, deps()),
      )
      expect(statuses.filter((status) => status === 200)).toHaveLength(1_000)
      const events = await eventsOf(messageId)
      expect(events).toEqual([
        {
          type: 'opened',
          detail: { bot: false, first: true, userAgent: BROWSER, repeats: 999, lastAt: expect.any(String) },
        },
      ])
      expect(await deliveriesOf(messageId)).toEqual([{ event_type: 'email.opened' }])
    })

    it('1,000 clicks of one link are one clicked event and one webhook delivery; the link counts each', async () => {
      const links = await upsertTrackedLinks(harness.database.db, {
        tenantId,
        campaignId: null,
        urls: [SALE],
      })
      const token = signTrackingToken({ kind: 'click', messageId, linkId: links.get(SALE) as number }, key)
      const link = `${base}/t/c/${token}`
      const statuses = await flood(1_000, 10, () =>
        clickRedirect(new Request(link, { headers: { 'user-agent': BROWSER } }), token, deps()),
      )
      expect(statuses.filter((status) => status === 302)).toHaveLength(1_000)
      const clicked = (await eventsOf(messageId)).filter((event) => event.type === 'clicked')
      expect(clicked).toEqual([
        { type: 'clicked', detail: expect.objectContaining({ url: SALE, first: true, repeats: 999 }) },
      ])
      expect(
        (await deliveriesOf(messageId)).filter((row) => row.event_type === 'email.clicked'),
      ).toHaveLength(1)
      const [counts] = await harness.database.sql<{ clicks: number }[]>`
        select clicks from link_clicks where message_id = ${messageId}`
      expect(counts?.clicks).toBe(1_000)
    })

    it('writes the next event in the next window', async () => {
      const nextHour = new Date(now.getTime() + 3_600_000)
      const token = signTrackingToken({ kind: 'open', messageId }, key)
      const request = new Request(`${base}/t/o/${token}`, { headers: { 'user-agent': BROWSER } })
      const response = await openPixel(
        request,
        token,
        harness.trackingDeps({ secrets: TEST_UNSUBSCRIBE_SECRETS, now: () => nextHour }),
      )
      expect(response.status).toBe(200)
      const opened = (await eventsOf(messageId)).filter((event) => event.type === 'opened')
      expect(opened.map((event) => event.detail.repeats ?? 0)).toEqual([999, 0])
      expect(opened[1]?.detail).toMatchObject({ bot: false, first: false })
    })
  })

  it('tracks API mail only when it asks, and never when the tenant turned tracking off', async () => {
    const html = '<p>Reset</p><a href="https://shop.example/reset">Reset</a></body>'
    const asked = `asked-${Date.now()}@example.com`
    const plain = `plain-${Date.now()}@example.com`
    const send = (to: string, extra: object) =>
      api(apiKey, 'POST', '/api/v1/messages', { to, subject: 'Hi', html, ...extra })
    expect((await send(asked, { tracking: { opens: true, clicks: true } })).status).toBe(202)
    expect((await send(plain, {})).status).toBe(202)
    const tracked = await receivedHtml(asked)
    expect(tracked).not.toContain('shop.example/reset')
    expect(pixelOf(tracked)).toBeDefined()
    expect(await receivedHtml(plain)).toBe(html)
    await harness.database.sql`update tenants set tracking_disabled = true where id = ${tenantId}`
    const privateTo = `private-${Date.now()}@example.com`
    expect((await send(privateTo, { tracking: { opens: true, clicks: true } })).status).toBe(202)
    expect(await receivedHtml(privateTo)).toBe(html)
  })
})
