import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  seedTenant,
  type WebHarness,
} from '../../test-support/harness'
import { postCampaign } from './post-campaign'
import { postContacts } from './post-contacts'
import { getSegmentById, getSegments, patchSegment, postSegment, removeSegment } from './segments'

const env = setupTestEnvironment('web-segments-api')

let harness: WebHarness
let acme: { tenantId: string; apiKey: string }
let globex: { tenantId: string; apiKey: string }

beforeAll(async () => {
  harness = createWebHarness(env)
  acme = await seedTenant(harness, 'Acme')
  globex = await seedTenant(harness, 'Globex')
  const contacts = await postContacts(
    jsonRequest('/api/v1/contacts', {
      token: acme.apiKey,
      body: {
        contacts: [
          { email: 'ann@example.test', attributes: { city: 'Berlin', plan: 'pro' } },
          { email: 'bob@example.test', attributes: { city: 'Berlin', plan: 'free' } },
          { email: 'cat@example.test', attributes: { city: 'Paris', plan: 'team' } },
        ],
      },
    }),
    harness.apiDeps(),
  )
  expect(contacts.status).toBe(200)
})

afterAll(async () => {
  await harness?.close()
})

interface ErrorBody {
  error: { code: string; message: string; details?: { path: string; message: string }[] }
}
interface SegmentBody {
  id: string
  name: string
  text: string
  audience?: { recipients: number }
}

const create = (body: unknown, token = acme.apiKey) =>
  postSegment(jsonRequest('/api/v1/segments', { token, body }), harness.apiDeps())
const byId = (id: string, token = acme.apiKey) =>
  getSegmentById(jsonRequest(`/api/v1/segments/${id}`, { token }), id, harness.apiDeps())
const remove = (id: string, token = acme.apiKey) =>
  removeSegment(jsonRequest(`/api/v1/segments/${id}`, { token, method: 'DELETE' }), id, harness.apiDeps())

describe('/api/v1/segments', () => {
  it('creates, reads with its audience counted now, lists and renames a segment; another tenant sees none of it', async () => {
    const created = await create({
      name: 'Berlin paying',
      filter: {
        conditions: [
          { op: 'equals', attribute: 'city', value: 'Berlin' },
          { op: 'in', attribute: 'plan', values: ['pro', 'team'] },
        ],
      },
    })
    expect(created.status).toBe(201)
    const segment = await readJson<SegmentBody>(created)
    expect(segment.text).toBe('city = Berlin and plan in (pro, team)')
    expect((await readJson<SegmentBody>(await byId(segment.id))).audience).toMatchObject({ recipients: 1 })
    expect((await byId(segment.id, globex.apiKey)).status).toBe(404)
    const listed = await readJson<{ items: SegmentBody[] }>(
      await getSegments(jsonRequest('/api/v1/segments', { token: globex.apiKey }), harness.apiDeps()),
    )
    expect(listed.items).toEqual([])
    const renamed = await patchSegment(
      jsonRequest(`/api/v1/segments/${segment.id}`, {
        token: acme.apiKey,
        method: 'PATCH',
        body: { name: 'Berlin' },
      }),
      segment.id,
      harness.apiDeps(),
    )
    expect((await readJson<SegmentBody>(renamed)).name).toBe('Berlin')
  })

  it('refuses a bad operator or attribute name with 400 naming the field', async () => {
    const cases: [unknown, string, string][] = [
      [
        { name: 'X', filter: { conditions: [{ op: 'like', attribute: 'city', value: 'B%' }] } },
        'filter.conditions[0].op',
        'like',
      ],
      [
        { name: 'X', filter: { conditions: [{ op: 'exists', attribute: 'city; drop table contacts' }] } },
        'filter.conditions[0].attribute',
        'drop table',
      ],
      [{ name: '', filter: { conditions: [{ op: 'exists', attribute: 'city' }] } }, 'name', 'required'],
      [{ name: 'X', filter: { conditions: [] } }, 'filter.conditions', 'at least one'],
    ]
    for (const [body, path, mentions] of cases) {
      const response = await create(body)
      expect(response.status, path).toBe(400)
      const { error } = await readJson<ErrorBody>(response)
      expect(error.details?.[0]?.path).toBe(path)
      expect(error.details?.[0]?.message).toContain(mentions)
    }
  })

  it('is a campaign audience through POST /api/v1/campaigns, and cannot be deleted while that campaign is scheduled', async () => {
    const segment = await readJson<SegmentBody>(
      await create({
        name: 'Parisians',
        filter: { conditions: [{ op: 'equals', attribute: 'city', value: 'Paris' }] },
      }),
    )
    const campaign = (token: string, extra: Record<string, unknown>) =>
      postCampaign(
        jsonRequest('/api/v1/campaigns', {
          token,
          body: {
            name: 'Bonjour',
            subject: 'Bonjour',
            html: '<p>Bonjour</p>',
            sendAt: new Date(Date.now() + 3_600_000).toISOString(),
            ...extra,
          },
        }),
        harness.apiDeps(),
      )
    expect((await campaign(globex.apiKey, { segmentId: segment.id })).status).toBe(404)
    const both = await campaign(acme.apiKey, { segmentId: segment.id, listId: segment.id })
    expect(both.status).toBe(400)
    expect((await readJson<ErrorBody>(both)).error.details?.[0]?.path).toBe('segmentId')
    const scheduled = await campaign(acme.apiKey, { segmentId: segment.id })
    expect(scheduled.status).toBe(201)

    expect((await remove(segment.id, globex.apiKey)).status).toBe(404)
    const refused = await remove(segment.id)
    expect(refused.status).toBe(409)
    expect((await readJson<ErrorBody>(refused)).error.message).toContain('“Bonjour” (scheduled)')
    expect((await byId(segment.id)).status).toBe(200)
  })

  it('deletes an unused segment', async () => {
    const segment = await readJson<SegmentBody>(
      await create({ name: 'Unused', filter: { conditions: [{ op: 'created-after', date: '2020-01-01' }] } }),
    )
    expect((await remove(segment.id)).status).toBe(204)
    expect((await byId(segment.id)).status).toBe(404)
  })
})
