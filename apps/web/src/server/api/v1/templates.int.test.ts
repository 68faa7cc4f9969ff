import { setupTestEnvironment } from '@fairlane/testing'
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
import { postMessage } from './post-message'
import {
  changeTemplate,
  deleteTemplateByRef,
  getTemplateByRef,
  getTemplates,
  postTemplate,
  type TemplateJson,
} from './templates'

const env = setupTestEnvironment('web-templates')

let harness: WebHarness
let deps: ApiDeps
let acme: Awaited<ReturnType<typeof seedTenant>>
let globex: Awaited<ReturnType<typeof seedTenant>>

beforeAll(async () => {
  harness = createWebHarness(env)
  deps = harness.apiDeps()
  acme = await seedTenant(harness, 'Acme')
  globex = await seedTenant(harness, 'Globex')
})

afterAll(async () => {
  await harness?.close()
})

type ErrorBody = { error: { code: string; message: string; details?: { path: string; message: string }[] } }

const base = { slug: 'welcome', subject: 'Welcome, {{name}}', html: '<p>Hello {{name}} from {{city}}</p>' }
const create = (body: unknown, key = acme.apiKey) =>
  postTemplate(jsonRequest('/api/v1/templates', { token: key, body }), deps)
const get = (ref: string, key = acme.apiKey) =>
  getTemplateByRef(jsonRequest(`/api/v1/templates/${ref}`, { token: key }), ref, deps)
const patch = (ref: string, body: unknown, key = acme.apiKey) =>
  changeTemplate(
    jsonRequest(`/api/v1/templates/${ref}`, { token: key, body, method: 'PATCH' }),
    ref,
    deps,
    'patch',
  )
const put = (ref: string, body: unknown, key = acme.apiKey) =>
  changeTemplate(
    jsonRequest(`/api/v1/templates/${ref}`, { token: key, body, method: 'PUT' }),
    ref,
    deps,
    'put',
  )
const remove = (ref: string, key = acme.apiKey) =>
  deleteTemplateByRef(jsonRequest(`/api/v1/templates/${ref}`, { token: key, method: 'DELETE' }), ref, deps)
const send = (body: unknown, key = acme.apiKey) =>
  postMessage(jsonRequest('/api/v1/messages', { token: key, body }), deps)

async function created(body: unknown): Promise<TemplateJson> {
  const response = await create(body)
  expect(response.status).toBe(201)
  return readJson<TemplateJson>(response)
}

async function firstIssue(response: Response) {
  const { error } = await readJson<ErrorBody>(response)
  return { code: error.code, message: error.message, ...error.details?.[0] }
}

describe('POST /api/v1/templates', () => {
  it('creates version 1: 201 with the template, and GET finds it by slug and by id', async () => {
    const response = await create({ ...base, slug: 'created', name: 'Created' })
    expect(response.status).toBe(201)
    expect(response.headers.get('location')).toBe('/api/v1/templates/created')
    const body = await readJson<TemplateJson>(response)
    expect(body).toMatchObject({ slug: 'created', name: 'Created', version: 1, html: base.html, text: null })
    expect((await readJson<TemplateJson>(await get('created'))).id).toBe(body.id)
    expect((await readJson<TemplateJson>(await get(body.id))).slug).toBe('created')
    const list = await readJson<{ items: TemplateJson[] }>(
      await getTemplates(jsonRequest('/api/v1/templates', { token: acme.apiKey }), deps),
    )
    expect(list.items.map((item) => item.slug)).toContain('created')
    const [history] = await harness.database.sql`
      select count(*)::int as versions from template_versions where template_id = ${body.id}`
    expect(history).toEqual({ versions: 1 })
  })

  it.each([
    ['an uppercase slug', { ...base, slug: 'Welcome' }, 'slug'],
    ['no subject', { slug: 'no-subject', html: '<p>x</p>' }, 'subject'],
    ['neither html nor text', { slug: 'empty', subject: 'S' }, 'html'],
    ['an unclosed section in the text', { ...base, slug: 'broken', text: '{{#items}}x' }, 'text'],
    ['an unclosed tag in the subject', { ...base, slug: 'broken-subject', subject: 'Hi {{name' }, 'subject'],
  ])('refuses %s: 400 naming the field', async (_, body, path) => {
    const response = await create(body)
    expect(response.status).toBe(400)
    expect(await firstIssue(response)).toMatchObject({ code: 'validation_failed', path })
  })

  it('refuses HTML over 512 KB: 413 naming html', async () => {
    const response = await create({ ...base, slug: 'huge', html: 'x'.repeat(512 * 1024 + 1) })
    expect(response.status).toBe(413)
    expect(await firstIssue(response)).toMatchObject({ code: 'payload_too_large', path: 'html' })
  })

  it.each(['otp', 'password-reset'])('refuses the built-in name %s: 400 naming slug', async (slug) => {
    const response = await create({ ...base, slug })
    expect(response.status).toBe(400)
    expect(await firstIssue(response)).toMatchObject({
      path: 'slug',
      message: expect.stringContaining('built-in'),
    })
  })

  it('refuses a slug the tenant already uses: 409 naming slug; another tenant may use it', async () => {
    await created({ ...base, slug: 'taken' })
    const again = await create({ ...base, slug: 'taken' })
    expect(again.status).toBe(409)
    expect(await firstIssue(again)).toMatchObject({ code: 'conflict', path: 'slug' })
    expect((await create({ ...base, slug: 'taken' }, globex.apiKey)).status).toBe(201)
  })

  it('needs an API key', async () => {
    expect((await create(base, 'fl_not_a_key')).status).toBe(401)
  })
})

describe('changing a template', () => {
  it('makes a new version for a content change, not for a name change or the same content', async () => {
    const template = await created({ ...base, slug: 'versions' })
    const renamed = await readJson<TemplateJson>(await patch('versions', { name: 'Renamed' }))
    expect(renamed).toMatchObject({ name: 'Renamed', version: 1 })
    const same = await readJson<TemplateJson>(await patch('versions', { subject: base.subject }))
    expect(same.version).toBe(1)
    const changed = await patch(template.id, { subject: 'Hi {{name}}', text: 'Hi {{name}}' })
    expect(changed.status).toBe(200)
    expect(await readJson(changed)).toMatchObject({ version: 2, subject: 'Hi {{name}}', text: 'Hi {{name}}' })
    const replaced = await readJson<TemplateJson>(
      await put('versions', { subject: 'Only text', text: 'Plain' }),
    )
    expect(replaced).toMatchObject({ version: 3, html: null, text: 'Plain', name: 'Renamed' })
    const history = await harness.database.sql`
      select version, subject from template_versions where template_id = ${template.id} order by version`
    expect(history).toEqual([
      { version: 1, subject: base.subject },
      { version: 2, subject: 'Hi {{name}}' },
      { version: 3, subject: 'Only text' },
    ])
  })

  it('refuses bad changes naming the field', async () => {
    await created({ ...base, slug: 'strict' })
    const cases: [Response, number, string][] = [
      [await patch('strict', { slug: 'other' }), 400, 'slug'],
      [await patch('strict', { html: null }), 400, 'html'],
      [await patch('strict', { html: '{{#open}}' }), 400, 'html'],
      [await patch('strict', { subject: 'x'.repeat(501) }), 400, 'subject'],
      [await put('strict', { slug: 'renamed', subject: 'S', html: 'x' }), 400, 'slug'],
    ]
    for (const [response, status, path] of cases) {
      expect(response.status).toBe(status)
      expect((await firstIssue(response)).path).toBe(path)
    }
    expect((await readJson<TemplateJson>(await get('strict'))).version).toBe(1)
  })

  it('answers 404 for a missing template and for another tenant’s', async () => {
    const mine = await created({ ...base, slug: 'private' })
    for (const ref of ['private', mine.id]) {
      expect((await get(ref, globex.apiKey)).status).toBe(404)
      expect((await patch(ref, { subject: 'Mine now' }, globex.apiKey)).status).toBe(404)
      expect((await remove(ref, globex.apiKey)).status).toBe(404)
    }
    expect((await get('no-such-template')).status).toBe(404)
    expect((await readJson<TemplateJson>(await get('private'))).subject).toBe(base.subject)
  })
})

describe('sending with a template slug', () => {
  it('renders the latest version; a message accepted before the change keeps what it rendered', async () => {
    await created({ ...base, slug: 'news' })
    const variables = { name: 'Ann', city: 'Berlin' }
    const first = await send({ to: 'ann@example.test', template: 'news', variables })
    expect(first.status).toBe(202)
    const { id: firstId } = await readJson<{ id: string }>(first)

    await patch('news', { subject: 'Version two for {{name}}', html: '<p>v2 {{name}} in {{city}}</p>' })
    const second = await send({ to: 'ann@example.test', template: 'news', variables })
    expect(second.status).toBe(202)
    const { id: secondId } = await readJson<{ id: string }>(second)

    const rows = await harness.database.sql`
      select id, subject, html, template, template_version from messages where id in (${firstId}, ${secondId})`
    const byId = new Map(rows.map((row) => [row.id, row]))
    expect(byId.get(firstId)).toMatchObject({
      subject: 'Welcome, Ann',
      html: '<p>Hello Ann from Berlin</p>',
      template: 'news',
      template_version: 1,
    })
    expect(byId.get(secondId)).toMatchObject({
      subject: 'Version two for Ann',
      html: '<p>v2 Ann in Berlin</p>',
      template_version: 2,
    })
  })

  it('sends a text-only template with no HTML part', async () => {
    await created({ slug: 'text-only', subject: 'Code {{code}}', text: 'Your code is {{code}}' })
    const response = await send({ to: 'bob@example.test', template: 'text-only', variables: { code: '42' } })
    expect(response.status).toBe(202)
    const { id } = await readJson<{ id: string }>(response)
    const [row] = await harness.database.sql`select html, text from messages where id = ${id}`
    expect(row).toEqual({ html: null, text: 'Your code is 42' })
  })
})

describe('DELETE /api/v1/templates/:ref', () => {
  it('is allowed while a scheduled campaign started from it exists: the campaign holds a copy', async () => {
    const template = await created({ ...base, slug: 'launch' })
    // "Start a campaign from this template" copies subject, HTML and text into the campaign.
    const campaign = await postCampaign(
      jsonRequest('/api/v1/campaigns', {
        token: acme.apiKey,
        body: {
          name: 'Launch',
          subject: template.subject,
          html: template.html,
          sendAt: new Date(Date.now() + 86_400_000).toISOString(),
        },
      }),
      deps,
    )
    expect(campaign.status).toBe(201)
    const { id: campaignId } = await readJson<{ id: string }>(campaign)
    const accepted = await send({
      to: 'cy@example.test',
      template: 'launch',
      variables: { name: 'Cy', city: 'Rome' },
    })
    const { id: messageId } = await readJson<{ id: string }>(accepted)

    const response = await remove('launch')
    expect(response.status).toBe(200)
    expect(await readJson(response)).toEqual({ deleted: true, id: template.id, slug: 'launch' })

    expect((await get('launch')).status).toBe(404)
    const [versions] = await harness.database.sql`
      select count(*)::int as n from template_versions where template_id = ${template.id}`
    expect(versions).toEqual({ n: 0 })
    const [campaignRow] = await harness.database
      .sql`select subject, html from campaigns where id = ${campaignId}`
    expect(campaignRow).toEqual({ subject: base.subject, html: base.html })
    const campaignNow = await getCampaign(
      jsonRequest(`/api/v1/campaigns/${campaignId}`, { token: acme.apiKey }),
      campaignId,
      deps,
    )
    expect(await readJson(campaignNow)).toMatchObject({ status: 'scheduled' })
    const [message] = await harness.database.sql`select html from messages where id = ${messageId}`
    expect(message).toEqual({ html: '<p>Hello Cy from Rome</p>' })

    const after = await send({ to: 'cy@example.test', template: 'launch', variables: { name: 'Cy' } })
    expect(after.status).toBe(400)
    expect(await firstIssue(after)).toMatchObject({ path: 'template' })
    expect((await remove('launch')).status).toBe(404)
  })
})

describe('bounded templates (issue 27, M4)', () => {
  const limited = (templates: { maxTemplates: number; versionsKept: number }) => {
    const base = harness.apiDeps()
    return harness.apiDeps({ tenantLimits: { ...base.tenantLimits, templates } })
  }

  it('refuses a template beyond MAX_TEMPLATES_PER_TENANT with 422; deleting one makes room', async () => {
    const tenant = await seedTenant(harness, 'Template cap')
    const small = limited({ maxTemplates: 3, versionsKept: 20 })
    const post = (slug: string) =>
      postTemplate(jsonRequest('/api/v1/templates', { token: tenant.apiKey, body: { ...base, slug } }), small)
    for (const slug of ['cap-a', 'cap-b', 'cap-c']) expect((await post(slug)).status).toBe(201)
    const refused = await post('cap-d')
    expect(refused.status).toBe(422)
    expect(await firstIssue(refused)).toMatchObject({
      code: 'unprocessable',
      message: expect.stringMatching(/already has 3 templates, the most allowed \(3\)/),
    })
    const [held] = await harness.database.sql`
      select count(*)::int as n from templates where tenant_id = ${tenant.tenantId}`
    expect(held).toEqual({ n: 3 })
    const removed = await deleteTemplateByRef(
      jsonRequest('/api/v1/templates/cap-a', { token: tenant.apiKey, method: 'DELETE' }),
      'cap-a',
      small,
    )
    expect(removed.status).toBe(200)
    expect((await post('cap-d')).status).toBe(201)
  })

  it('lists without html and text, a page at a time by slug; a forged cursor is a 400', async () => {
    const tenant = await seedTenant(harness, 'Template pages')
    const slugs = ['page-e', 'page-a', 'page-d', 'page-b', 'page-c']
    for (const slug of slugs) {
      const response = await postTemplate(
        jsonRequest('/api/v1/templates', {
          token: tenant.apiKey,
          body: { ...base, slug, text: 'x'.repeat(1000) },
        }),
        deps,
      )
      expect(response.status).toBe(201)
    }
    const seen: string[] = []
    let cursor: string | undefined
    for (let pages = 0; pages < 5; pages += 1) {
      const query = new URLSearchParams({ limit: '2', ...(cursor ? { cursor } : {}) })
      const response = await getTemplates(
        jsonRequest(`/api/v1/templates?${query}`, { token: tenant.apiKey }),
        deps,
      )
      expect(response.status).toBe(200)
      const page = await readJson<{ items: Record<string, unknown>[]; nextCursor?: string }>(response)
      expect(page.items.length).toBeLessThanOrEqual(2)
      for (const item of page.items) {
        expect(item).not.toHaveProperty('html')
        expect(item).not.toHaveProperty('text')
        expect(item).toMatchObject({ subject: base.subject, version: 1 })
        seen.push(String(item.slug))
      }
      cursor = page.nextCursor
      if (!cursor) break
    }
    expect(seen).toEqual([...slugs].sort())
    // The default page holds them all; the single template still has its body.
    const all = await readJson<{ items: unknown[]; nextCursor?: string }>(
      await getTemplates(jsonRequest('/api/v1/templates', { token: tenant.apiKey }), deps),
    )
    expect(all.items).toHaveLength(5)
    expect(all.nextCursor).toBeUndefined()
    const one = await readJson<TemplateJson>(
      await getTemplateByRef(
        jsonRequest('/api/v1/templates/page-a', { token: tenant.apiKey }),
        'page-a',
        deps,
      ),
    )
    expect(one).toMatchObject({ html: base.html, text: 'x'.repeat(1000) })
    const forged = await getTemplates(
      jsonRequest('/api/v1/templates?cursor=not-ours!', { token: tenant.apiKey }),
      deps,
    )
    expect(forged.status).toBe(400)
    expect(await firstIssue(forged)).toMatchObject({ path: 'cursor' })
  })

  it('keeps the newest TEMPLATE_VERSIONS_KEPT versions, and older ones a message was rendered from', async () => {
    const tenant = await seedTenant(harness, 'Template versions')
    const kept = limited({ maxTemplates: 500, versionsKept: 3 })
    const template = await readJson<TemplateJson>(
      await postTemplate(
        jsonRequest('/api/v1/templates', { token: tenant.apiKey, body: { ...base, slug: 'versions' } }),
        kept,
      ),
    )
    const sendWith = async () => {
      const response = await postMessage(
        jsonRequest('/api/v1/messages', {
          token: tenant.apiKey,
          body: { to: 'reader@example.test', template: 'versions', variables: { name: 'R', city: 'Oslo' } },
        }),
        kept,
      )
      expect(response.status).toBe(202)
    }
    await sendWith() // rendered from version 1
    for (let n = 2; n <= 8; n += 1) {
      const response = await changeTemplate(
        jsonRequest('/api/v1/templates/versions', {
          token: tenant.apiKey,
          body: { subject: `Version ${n} for {{name}}` },
          method: 'PATCH',
        }),
        'versions',
        kept,
        'patch',
      )
      expect((await readJson<TemplateJson>(response)).version).toBe(n)
      if (n === 4) await sendWith() // rendered from version 4
    }
    const versions = await harness.database.sql`
      select version from template_versions where template_id = ${template.id} order by version`
    expect(versions.map((row) => row.version)).toEqual([1, 4, 6, 7, 8])

    // Once the messages are gone (retention), the next change trims their versions too.
    await harness.database.sql`delete from messages where tenant_id = ${tenant.tenantId}`
    await changeTemplate(
      jsonRequest('/api/v1/templates/versions', {
        token: tenant.apiKey,
        body: { subject: 'Version 9 for {{name}}' },
        method: 'PATCH',
      }),
      'versions',
      kept,
      'patch',
    )
    const after = await harness.database.sql`
      select version from template_versions where template_id = ${template.id} order by version`
    expect(after.map((row) => row.version)).toEqual([7, 8, 9])
  })
})
