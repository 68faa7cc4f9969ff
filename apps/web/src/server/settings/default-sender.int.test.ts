import { findDefaultSender } from '@fairlane/db/queries/senders'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWebHarness, seedTenant, type WebHarness } from '../test-support/harness'
import { insertSendingDomain } from '../test-support/sending-domains'
import { saveDefaultSenderForm } from './default-sender'
import { fromFieldHint } from './from-hint'

const env = setupTestEnvironment('web-default-sender')

let harness: WebHarness
let tenant: Awaited<ReturnType<typeof seedTenant>>
let other: Awaited<ReturnType<typeof seedTenant>>

beforeAll(async () => {
  harness = createWebHarness(env)
  tenant = await seedTenant(harness, 'Acme')
  other = await seedTenant(harness, 'Globex')
  const { sql } = harness.database
  await insertSendingDomain(sql, { tenantId: tenant.tenantId, name: 'acme.test', status: 'verified' })
  await insertSendingDomain(sql, { tenantId: tenant.tenantId, name: 'pending.acme.test', status: 'pending' })
  await insertSendingDomain(sql, { tenantId: other.tenantId, name: 'globex.test', status: 'verified' })
})

afterAll(async () => {
  await harness?.close()
})

const ACTOR = { userId: null, label: 'owner@acme.test', ipAddress: '198.51.100.7' }
const save = (tenantId: string, from: string, replyTo = '') =>
  saveDefaultSenderForm({ tenantId, values: { from, replyTo }, actor: ACTOR }, { db: harness.database.db })

describe('the default sender form', () => {
  it('saves a sender on a verified domain, normalised, and clears it with empty fields', async () => {
    const saved = await save(tenant.tenantId, 'Acme News <News@ACME.test>', 'help@example.org')
    expect(saved).toEqual({
      values: { from: '"Acme News" <News@acme.test>', replyTo: 'help@example.org' },
      errors: {},
      saved: { from: '"Acme News" <News@acme.test>', replyTo: 'help@example.org' },
    })
    expect(await findDefaultSender(harness.database.db, { tenantId: tenant.tenantId })).toEqual({
      from: '"Acme News" <News@acme.test>',
      replyTo: 'help@example.org',
    })
    expect(await findDefaultSender(harness.database.db, { tenantId: other.tenantId })).toEqual({
      from: null,
      replyTo: null,
    })
    await save(tenant.tenantId, '  ', '')
    expect(await findDefaultSender(harness.database.db, { tenantId: tenant.tenantId })).toEqual({
      from: null,
      replyTo: null,
    })
  })

  it.each([
    ['a pending domain', 'news@pending.acme.test', 'from', 'not verified'],
    ['another tenant’s domain', 'news@globex.test', 'from', 'not one of your sending domains'],
    ['CRLF', 'news@acme.test\r\nBcc: x@y.test', 'from', 'single line'],
    ['a display name of 201 characters', `${'n'.repeat(201)} <news@acme.test>`, 'from', '200'],
  ])('refuses %s beside the field, keeping what was typed', async (_label, from, field, message) => {
    const state = await save(tenant.tenantId, from)
    expect(state.errors).toEqual({ [field]: expect.stringContaining(message) })
    expect(state.values.from).toBe(from)
    expect(state.saved).toBeUndefined()
    expect((await findDefaultSender(harness.database.db, { tenantId: tenant.tenantId })).from).toBeNull()
  })

  it('refuses a bad Reply-To beside its field', async () => {
    const state = await save(tenant.tenantId, '', 'nobody')
    expect(state.errors).toEqual({ replyTo: expect.stringContaining('valid email address') })
  })

  it('hints at the verified domains', () => {
    expect(fromFieldHint(['acme.test', 'news.acme.test'])).toContain('acme.test, news.acme.test')
    expect(fromFieldHint([])).toContain('no verified sending domain')
  })
})
