import { campaigns, contacts, lists, type MessageStatus, messages, suppressions } from '@fairlane/db'
import { setupTestEnvironment } from '@fairlane/testing'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  seedTenant,
  type WebHarness,
} from '../../test-support/harness'
import type { ApiDeps } from './deps'
import { getCampaign } from './get-campaign'
import { postCampaign } from './post-campaign'
import { postCampaignCancel } from './post-campaign-cancel'

const env = setupTestEnvironment('web-campaigns')

let harness: WebHarness
let deps: ApiDeps
let acme: Awaited<ReturnType<typeof seedTenant>>
let globex: Awaited<ReturnType<typeof seedTenant>>
let empty: Awaited<ReturnType<typeof seedTenant>>
let acmeList: string
let globexList: string

beforeAll(async () => {
  harness = createWebHarness(env)
  deps = harness.apiDeps()
  acme = await seedTenant(harness, 'Acme')
  globex = await seedTenant(harness, 'Globex')
  empty = await seedTenant(harness, 'Nobody Yet')
  const { db } = harness.database
  await db.insert(contacts).values([
    { tenantId: acme.tenantId, email: 'ann@example.com', name: 'Ann' },
    { tenantId: acme.tenantId, email: 'bob@example.com', name: 'Bob', unsubscribedAt: new Date() },
    { tenantId: globex.tenantId, email: 'zed@example.com', name: 'Zed' },
    { tenantId: empty.tenantId, email: 'gone@example.com', unsubscribedAt: new Date() },
    { tenantId: empty.tenantId, email: 'bounced@example.com' },
  ])
  await db
    .insert(suppressions)
    .values({ tenantId: empty.tenantId, email: 'bounced@example.com', reason: 'hard-bounce' })
  const [a] = await db
    .insert(lists)
    .values({ tenantId: acme.tenantId, name: 'Empty list' })
    .returning({ id: lists.id })
  const [g] = await db
    .insert(lists)
    .values({ tenantId: globex.tenantId, name: 'Globex list' })
    .returning({ id: lists.id })
  acmeList = a?.id ?? ''
  globexList = g?.id ?? ''
})

afterAll(async () => {
  await harness?.close()
})

const future = () => new Date(Date.now() + 86_400_000).toISOString()
const base = { name: 'Spring news', subject: 'Hello {{name}}', html: '<p>Hi {{name}} from {{city}}</p>' }
const post = (body: unknown, key = acme.apiKey) =>
  postCampaign(jsonRequest('/api/v1/campaigns', { token: key, body }), deps)
const get = (id: string, key = acme.apiKey) =>
  getCampaign(jsonRequest(`/api/v1/campaigns/${id}`, { token: key }), id, deps)

async function errorOf(response: Response) {
  return (
    await readJson<{ error: { code: string; message: string; details?: { path: string }[] } }>(response)
  ).error
}

describe('POST /api/v1/campaigns', () => {
  it('schedules at an ISO instant: 201 { id, status, sendAt, warnings } and the row stored', async () => {
    const sendAt = future()
    const response = await post({ ...base, sendAt })
    expect(response.status).toBe(201)
    const body = await readJson(response)
    expect(body).toEqual({
      id: expect.any(String),
      status: 'scheduled',
      sendAt: new Date(sendAt).toISOString(),
      warnings: [],
    })
    const [row] = await harness.database.sql`select * from campaigns where id = ${body.id as string}`
    expect(row).toMatchObject({
      tenant_id: acme.tenantId,
      status: 'scheduled',
      time_zone: 'UTC',
      list_id: null,
    })
  })

  it('schedules a local time in a zone, keeping the wall time and zone', async () => {
    const year = new Date().getUTCFullYear() + 1
    const response = await post({
      ...base,
      sendAt: { local: `${year}-12-24T09:00`, timeZone: 'Asia/Ho_Chi_Minh' },
    })
    expect(response.status).toBe(201)
    const body = await readJson(response)
    expect(body.sendAt).toBe(`${year}-12-24T02:00:00.000Z`)
    const [row] = await harness.database
      .sql`select send_at_local, time_zone from campaigns where id = ${body.id as string}`
    expect(row).toEqual({ send_at_local: `${year}-12-24T09:00`, time_zone: 'Asia/Ho_Chi_Minh' })
  })

  it('asks which of a repeated hour is meant, and takes the fold', async () => {
    const year = new Date().getUTCFullYear() + 1
    // The last Sunday of October, when Berlin's clocks go back from 03:00 to 02:00.
    const lastSunday = new Date(Date.UTC(year, 9, 31))
    lastSunday.setUTCDate(31 - lastSunday.getUTCDay())
    const local = `${lastSunday.toISOString().slice(0, 10)}T02:30`
    const ambiguous = await post({ ...base, sendAt: { local, timeZone: 'Europe/Berlin' } })
    expect(ambiguous.status).toBe(400)
    const error = await errorOf(ambiguous)
    expect(error.details?.[0]?.path).toBe('sendAt.fold')
    expect(error.message).toMatch(/happens twice/)
    const chosen = await post({ ...base, sendAt: { local, timeZone: 'Europe/Berlin', fold: 'later' } })
    expect(chosen.status).toBe(201)
    expect((await readJson(chosen)).sendAt).toBe(`${local.slice(0, 10)}T01:30:00.000Z`)
  })

  it('refuses bad input with 4xx naming the field, and writes nothing', async () => {
    const before = await harness.database.sql`select count(*)::int as n from campaigns`
    const year = new Date().getUTCFullYear() + 1
    const lastSundayOfMarch = new Date(Date.UTC(year, 2, 31))
    lastSundayOfMarch.setUTCDate(31 - lastSundayOfMarch.getUTCDay())
    const cases: [unknown, number, string][] = [
      [{ ...base, sendAt: '2020-01-01T00:00:00Z' }, 400, 'sendAt'],
      [{ ...base, sendAt: { local: '2020-01-01T09:00', timeZone: 'Europe/Berlin' } }, 400, 'sendAt.local'],
      [{ ...base, sendAt: { local: `${year}-06-01T09:00`, timeZone: 'Mars/Base' } }, 400, 'sendAt.timeZone'],
      [
        {
          ...base,
          sendAt: {
            local: `${lastSundayOfMarch.toISOString().slice(0, 10)}T02:30`,
            timeZone: 'Europe/Berlin',
          },
        },
        400,
        'sendAt.local',
      ],
      [{ ...base, sendAt: { local: `${year}-02-30T09:00`, timeZone: 'UTC' } }, 400, 'sendAt.local'],
      [{ ...base, sendAt: 'tomorrow' }, 400, 'sendAt'],
      [{ ...base, name: '', sendAt: future() }, 400, 'name'],
      [{ ...base, subject: 'a\r\nBcc: x@y.z', sendAt: future() }, 400, 'subject'],
      [{ ...base, html: '<p>{{#open}}</p>', sendAt: future() }, 400, 'html'],
      [{ ...base, sendAt: future(), listId: 'not-a-uuid' }, 400, 'listId'],
      [{ ...base, sendAt: future(), extra: 1 }, 400, 'extra'],
      [{ ...base, sendAt: future(), listId: globexList }, 404, 'listId'],
      [{ ...base, html: `<p>${'x'.repeat(600 * 1024)}</p>`, sendAt: future() }, 413, 'html'],
    ]
    for (const [body, status, path] of cases) {
      const response = await post(body)
      expect(response.status, JSON.stringify(body).slice(0, 120)).toBe(status)
      const error = await errorOf(response)
      expect(error.details?.map((detail) => detail.path)).toContain(path)
    }
    const huge = await post({ ...base, html: 'x'.repeat(2 * 1024 * 1024), sendAt: future() })
    expect(huge.status).toBe(413)
    const after = await harness.database.sql`select count(*)::int as n from campaigns`
    expect(after).toEqual(before)
  })

  it('accepts an audience that is empty now (it is resolved at send time) with a warning saying why', async () => {
    const response = await post({ ...base, sendAt: future() }, empty.apiKey)
    expect(response.status).toBe(201)
    const body = await readJson<{
      id: string
      status: string
      warnings: { code: string; message: string }[]
    }>(response)
    expect(body.status).toBe('scheduled')
    expect(body.warnings).toEqual([{ code: 'empty-audience', message: expect.any(String) }])
    expect(body.warnings[0]?.message).toMatch(
      /audience is empty now.*1 unsubscribed and 1 suppressed.*resolved at send time/,
    )
    const [row] = await harness.database.sql`select status from campaigns where id = ${body.id}`
    expect(row).toEqual({ status: 'scheduled' })

    const toEmptyList = await post({ ...base, sendAt: future(), listId: acmeList })
    expect(toEmptyList.status).toBe(201)
    const listAnswer = await readJson<{ warnings: { code: string; message: string }[] }>(toEmptyList)
    expect(listAnswer.warnings.map((warning) => warning.code)).toEqual(['empty-audience'])
    expect(listAnswer.warnings[0]?.message).toMatch(/the list has no subscribed contacts/)
  })

  it('needs an API key', async () => {
    const response = await postCampaign(
      jsonRequest('/api/v1/campaigns', { body: { ...base, sendAt: future() } }),
      deps,
    )
    expect(response.status).toBe(401)
  })
})

describe('GET /api/v1/campaigns/:id', () => {
  it('answers status, sendAt and counts by message status', async () => {
    const created = await readJson(await post({ ...base, sendAt: future() }))
    const id = created.id as string
    const [ann] = await harness.database
      .sql`select id from contacts where email = 'ann@example.com' and tenant_id = ${acme.tenantId}`
    await harness.database.db.insert(messages).values([
      {
        tenantId: acme.tenantId,
        campaignId: id,
        contactId: ann?.id,
        lane: 'bulk',
        status: 'sent',
        toAddress: 'ann@example.com',
        firstOpenedAt: new Date(),
      },
      {
        tenantId: acme.tenantId,
        campaignId: id,
        lane: 'bulk',
        status: 'pending',
        toAddress: 'x1@example.com',
      },
      {
        tenantId: acme.tenantId,
        campaignId: id,
        lane: 'bulk',
        status: 'sending',
        toAddress: 'x2@example.com',
      },
      {
        tenantId: acme.tenantId,
        campaignId: id,
        lane: 'bulk',
        status: 'suppressed',
        toAddress: 'x3@example.com',
      },
    ])
    const response = await get(id)
    expect(response.status).toBe(200)
    expect(await readJson(response)).toEqual({
      id,
      status: 'scheduled',
      sendAt: created.sendAt,
      from: null,
      replyTo: null,
      counts: {
        pending: 1,
        queued: 1,
        sent: 1,
        failed: 0,
        suppressed: 1,
        cancelled: 0,
        bounced: 0,
        complained: 0,
        opened: 1,
        clicked: 0,
      },
    })
  })

  it('takes tracking switches, each left out taking the tenant’s default, and names a wrong one', async () => {
    await harness.database
      .sql`update tenants set track_opens = true, track_clicks = false where id = ${acme.tenantId}`
    try {
      const switches = async (body: object) => {
        const created = await readJson(await post({ ...base, sendAt: future(), ...body }))
        const [row] = await harness.database.sql<{ track_opens: boolean; track_clicks: boolean }[]>`
          select track_opens, track_clicks from campaigns where id = ${created.id as string}`
        return row
      }
      expect(await switches({})).toEqual({ track_opens: true, track_clicks: false })
      expect(await switches({ tracking: { clicks: true } })).toEqual({
        track_opens: true,
        track_clicks: true,
      })
      expect(await switches({ tracking: { opens: false, clicks: false } })).toEqual({
        track_opens: false,
        track_clicks: false,
      })
      const bad = await post({ ...base, sendAt: future(), tracking: { opens: 'yes' } })
      expect(bad.status).toBe(400)
      expect(JSON.stringify(await readJson(bad))).toContain('tracking.opens')
    } finally {
      await harness.database
        .sql`update tenants set track_opens = false, track_clicks = false where id = ${acme.tenantId}`
    }
  })

  it("answers 404 for another tenant's campaign and for malformed or unknown ids", async () => {
    const created = await readJson(await post({ ...base, sendAt: future() }))
    for (const [id, key] of [
      [created.id as string, globex.apiKey],
      ['not-a-uuid', acme.apiKey],
      ['00000000-0000-4000-8000-000000000000', acme.apiKey],
    ] as const) {
      const response = await get(id, key)
      expect(response.status).toBe(404)
      expect((await errorOf(response)).code).toBe('not_found')
    }
  })
})

describe('POST /api/v1/campaigns/:id/cancel', () => {
  const cancel = (id: string, key = acme.apiKey) =>
    postCampaignCancel(
      jsonRequest(`/api/v1/campaigns/${id}/cancel`, { token: key, method: 'POST' }),
      id,
      deps,
    )

  /** A campaign of acme's, moved to `status` as the worker would, with one message per status listed. */
  async function campaignIn(status: 'sending' | 'sent', statuses: MessageStatus[]) {
    const id = (await readJson(await post({ ...base, sendAt: future() }))).id as string
    const { db } = harness.database
    await db.update(campaigns).set({ status, recipientCount: statuses.length }).where(eq(campaigns.id, id))
    await db.insert(messages).values(
      statuses.map((messageStatus, i) => ({
        tenantId: acme.tenantId,
        campaignId: id,
        lane: 'bulk' as const,
        status: messageStatus,
        toAddress: `c${i}@example.com`,
        sentAt: messageStatus === 'sent' ? new Date() : null,
      })),
    )
    return id
  }

  it('cancels a sending campaign: 200 with what went and what was held back', async () => {
    const id = await campaignIn('sending', [
      'sent',
      'sent',
      'sending',
      'queued',
      'pending',
      'pending',
      'failed',
    ])
    const response = await cancel(id)
    expect(response.status).toBe(200)
    expect(await readJson(response)).toEqual({ id, status: 'cancelled', sent: 2, cancelled: 3 })
    expect(await readJson(await get(id))).toMatchObject({
      status: 'cancelled',
      counts: { pending: 0, queued: 1, sent: 2, failed: 1, suppressed: 0, cancelled: 3 },
    })
    const again = await cancel(id)
    expect(again.status).toBe(200)
    expect(await readJson(again)).toEqual({ id, status: 'cancelled', sent: 2, cancelled: 0 })
  })

  it('cancels a scheduled campaign with nothing to hold back', async () => {
    const id = (await readJson(await post({ ...base, sendAt: future() }))).id as string
    expect(await readJson(await cancel(id))).toEqual({ id, status: 'cancelled', sent: 0, cancelled: 0 })
  })

  it('answers 409 for a sent campaign and changes nothing', async () => {
    const id = await campaignIn('sent', ['sent', 'failed'])
    const response = await cancel(id)
    expect(response.status).toBe(409)
    const error = await errorOf(response)
    expect(error.code).toBe('conflict')
    expect(error.message).toMatch(/already sent/)
    expect(await readJson(await get(id))).toMatchObject({ status: 'sent' })
  })

  it("answers 404 for another tenant's campaign, touching nothing, and for malformed or unknown ids", async () => {
    const id = await campaignIn('sending', ['pending', 'queued'])
    for (const [target, key] of [
      [id, globex.apiKey],
      ['not-a-uuid', acme.apiKey],
      ['00000000-0000-4000-8000-000000000000', acme.apiKey],
    ] as const) {
      const response = await cancel(target, key)
      expect(response.status).toBe(404)
      expect((await errorOf(response)).code).toBe('not_found')
    }
    expect(await readJson(await get(id))).toMatchObject({
      status: 'sending',
      counts: { pending: 1, queued: 1, cancelled: 0 },
    })
  })

  it('needs an API key', async () => {
    const id = (await readJson(await post({ ...base, sendAt: future() }))).id as string
    const response = await postCampaignCancel(
      jsonRequest(`/api/v1/campaigns/${id}/cancel`, { method: 'POST' }),
      id,
      deps,
    )
    expect(response.status).toBe(401)
    expect(await readJson(await get(id))).toMatchObject({ status: 'scheduled' })
  })
})
