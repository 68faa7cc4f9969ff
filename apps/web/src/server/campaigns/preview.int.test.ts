import { MAX_CAMPAIGN_HTML_BYTES } from '@fairlane/core'
import { contacts } from '@fairlane/db'
import { createTenant } from '@fairlane/db/queries/tenants'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWebHarness, type WebHarness } from '../test-support/harness'
import { renderPreview } from './preview'

const env = setupTestEnvironment('web-campaign-preview')

let harness: WebHarness
let tenantId: string
let annId: string

beforeAll(async () => {
  harness = createWebHarness(env)
  tenantId = (await createTenant(harness.database.db, { name: 'Acme' })).id
  const [ann] = await harness.database.db
    .insert(contacts)
    .values({ tenantId, email: 'ann@example.com', name: 'Ann', attributes: { city: 'Hanoi' } })
    .returning({ id: contacts.id })
  annId = ann?.id ?? ''
})

afterAll(async () => {
  await harness?.close()
})

const preview = (input: { subject: string; html: string; text?: string; contactId?: string | null }) =>
  renderPreview(
    { tenantId, text: '', contactId: null, ...input },
    { db: harness.database.db, unsubscribeUrl: (token) => `https://mail.example.test/u/${token}` },
  )

describe('renderPreview', () => {
  it('renders the campaign for a contact, with unknown variables named', async () => {
    const result = await preview({
      subject: 'Hi {{name}}',
      html: '<p>{{city}} {{plan}}</p>',
      contactId: annId,
    })
    expect(result.errors).toEqual([])
    expect(result.subject).toBe('Hi Ann')
    expect(result.html).toContain('<p>Hanoi </p>')
    expect(result.unknown).toEqual(['plan'])
  })

  it('refuses content over the campaign limits with an error naming the field, without rendering it', async () => {
    const html = `<p>{{name}}</p>${'x'.repeat(MAX_CAMPAIGN_HTML_BYTES)}`
    const result = await preview({
      subject: 'Hi {{name}}',
      html,
      text: 'y'.repeat(600 * 1024),
      contactId: annId,
    })
    expect(result.errors).toEqual([
      'HTML body: must be at most 512 KB (it is 513 KB).',
      'Text part: must be at most 512 KB (it is 600 KB).',
    ])
    expect(result).toMatchObject({ subject: '', html: '', text: '', unknown: [] })
  })

  it('names a subject over 500 characters', async () => {
    const result = await preview({ subject: 's'.repeat(501), html: '<p>Hi</p>' })
    expect(result.errors).toEqual(['Subject: must be at most 500 characters.'])
  })
})
