import { addDomain } from '@fairlane/core'
import { listTenantAuditPage } from '@fairlane/db/queries/tenant-audit'
import { saveTrackingSettings } from '@fairlane/db/queries/tracking-settings'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { domainUseCaseDeps } from '../api/v1/domains'
import { CLIENT_ADDRESS_HEADER } from '../http/client-address'
import { API_ROUTES, type RouteDeps } from '../routes'
import { saveDefaultSenderForm } from '../settings/default-sender'
import { saveTrackingSettingsForm } from '../settings/save-tracking-settings'
import { routeDeps } from '../test-support/api-calls'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  seedTenant,
  TEST_ADMIN_TOKEN,
  type WebHarness,
} from '../test-support/harness'
import { insertSendingDomain } from '../test-support/sending-domains'
import { type AuditedWhat, audited } from './record-audit'

/**
 * The tenant audit log as `/api/v1` and the admin API write it: who (`API key <prefix>`, or the
 * platform), what, which target, from which address (the header the web entry stamps).
 */
const env = setupTestEnvironment('web-audit-trail')

let harness: WebHarness
let deps: RouteDeps
let tenant: Awaited<ReturnType<typeof seedTenant>>
const ADDRESS = '198.51.100.23'

beforeAll(async () => {
  harness = createWebHarness(env)
  deps = routeDeps(harness, harness.apiDeps({ webhookAllowPrivate: true }))
  tenant = await seedTenant(harness, 'Audited')
})

afterAll(async () => {
  await harness?.close()
})

async function call(
  route: keyof typeof API_ROUTES,
  path: string,
  params: Record<string, string>,
  body?: unknown,
  token: string = tenant.apiKey,
): Promise<Response> {
  const { method, handle } = API_ROUTES[route]
  const request = jsonRequest(path, { method, token, body, headers: { [CLIENT_ADDRESS_HEADER]: ADDRESS } })
  const response = await handle(request, params as never, deps)
  expect(response.status, `${method} ${path}`).toBeLessThan(300)
  return response
}

describe('audit entries from /api/v1 and the admin API', () => {
  it('records domains, webhooks, suppression removals and plan changes with the actor and address', async () => {
    const domain = await readJson<{ id: string }>(
      await call('addDomain', '/api/v1/domains', {}, { name: 'audited.example.com' }),
    )
    await call('deleteDomain', `/api/v1/domains/${domain.id}`, { id: domain.id })

    const hook = await readJson<{ id: string }>(
      await call(
        'addWebhook',
        '/api/v1/webhooks',
        {},
        { url: 'http://127.0.0.1:9/in', events: ['email.sent'] },
      ),
    )
    await call('updateWebhook', `/api/v1/webhooks/${hook.id}`, { id: hook.id }, { enabled: false })
    await call('rotateWebhookSecret', `/api/v1/webhooks/${hook.id}/rotate-secret`, { id: hook.id }, {})
    await call('deleteWebhook', `/api/v1/webhooks/${hook.id}`, { id: hook.id })

    await call('addSuppressions', '/api/v1/suppressions', {}, { emails: ['gone@example.test'] })
    await call('removeSuppression', '/api/v1/suppressions/gone%40example.test', {
      email: 'gone@example.test',
    })

    const patched = await API_ROUTES.updateTenant.handle(
      jsonRequest(`/api/admin/tenants/${tenant.tenantId}`, {
        method: 'PATCH',
        token: TEST_ADMIN_TOKEN,
        body: { plan: { ratePerSec: 7 } },
        headers: { [CLIENT_ADDRESS_HEADER]: ADDRESS },
      }),
      { id: tenant.tenantId },
      deps,
    )
    expect(patched.status).toBe(200)

    const rows = await listTenantAuditPage(harness.database.db, {
      tenantId: tenant.tenantId,
      filter: {},
      limit: 50,
    })
    const keyActor = `API key ${tenant.apiKey.slice(0, 12)}`
    expect(rows.map((row) => [row.action, row.actor, row.ipAddress]).reverse()).toEqual([
      ['domain.add', keyActor, ADDRESS],
      ['domain.remove', keyActor, ADDRESS],
      ['webhook.create', keyActor, ADDRESS],
      ['webhook.update', keyActor, ADDRESS],
      ['webhook.secret.rotate', keyActor, ADDRESS],
      ['webhook.delete', keyActor, ADDRESS],
      ['suppression.remove', keyActor, ADDRESS],
      ['tenant.plan.update', 'Fairlane platform (admin-token)', ADDRESS],
    ])
    const byAction = Object.fromEntries(rows.map((row) => [row.action, row]))
    expect(byAction['domain.add']).toMatchObject({
      targetType: 'domain',
      targetId: domain.id,
      details: { name: 'audited.example.com' },
    })
    expect(byAction['webhook.update']?.details).toMatchObject({ changed: ['enabled'], enabled: false })
    expect(byAction['suppression.remove']).toMatchObject({
      targetId: 'gone@example.test',
      details: { reason: 'manual' },
    })
    expect(byAction['tenant.plan.update']?.details).toMatchObject({ after: { ratePerSec: 7 } })
  })

  it("keeps each tenant's entries to itself, and the filters and pages narrow them", async () => {
    const other = await seedTenant(harness, 'Neighbour')
    await insertSendingDomain(harness.database.sql, {
      tenantId: other.tenantId,
      name: 'neighbour.test',
      status: 'verified',
    })
    await call('addSuppressions', '/api/v1/suppressions', {}, { emails: ['n@example.test'] }, other.apiKey)
    await call(
      'removeSuppression',
      '/api/v1/suppressions/n%40example.test',
      { email: 'n@example.test' },
      undefined,
      other.apiKey,
    )
    const { db } = harness.database
    const mine = await listTenantAuditPage(db, { tenantId: other.tenantId, filter: {}, limit: 10 })
    expect(mine.map((row) => row.action)).toEqual(['suppression.remove'])

    const onlyHooks = await listTenantAuditPage(db, {
      tenantId: tenant.tenantId,
      filter: { action: 'webhook.update' },
      limit: 10,
    })
    expect(onlyHooks).toHaveLength(1)
    const platform = await listTenantAuditPage(db, {
      tenantId: tenant.tenantId,
      filter: { actor: 'PLATFORM' },
      limit: 10,
    })
    expect(platform.map((row) => row.action)).toEqual(['tenant.plan.update'])
    // % is a literal, not a wildcard.
    expect(
      await listTenantAuditPage(db, { tenantId: tenant.tenantId, filter: { actor: '%' }, limit: 10 }),
    ).toEqual([])
    const future = new Date(Date.now() + 60_000)
    expect(
      await listTenantAuditPage(db, { tenantId: tenant.tenantId, filter: { from: future }, limit: 10 }),
    ).toEqual([])

    // Keyset pages of 3 walk all 8 entries once, newest first.
    const seen: number[] = []
    let beforeId: number | undefined
    for (;;) {
      const page = await listTenantAuditPage(db, {
        tenantId: tenant.tenantId,
        filter: {},
        beforeId,
        limit: 3,
      })
      seen.push(...page.slice(0, 3).map((row) => row.id))
      if (page.length <= 3) break
      beforeId = page[2]?.id
    }
    expect(seen).toHaveLength(8)
    expect([...seen].sort((a, b) => b - a)).toEqual(seen)
  })
})

describe('audit entries of DKIM rotation, the default sender, tracking and webhook test/replay', () => {
  it('writes one entry per change with the actor and address, from /api/v1 and the settings forms', async () => {
    const owner = await seedTenant(harness, 'Audited more')
    const as = (
      route: keyof typeof API_ROUTES,
      path: string,
      params: Record<string, string>,
      body?: unknown,
    ) => call(route, path, params, body, owner.apiKey)
    const { sql, db } = harness.database

    // DKIM rotation needs an active key: the first record is taken as verified here.
    const domain = await readJson<{ id: string }>(
      await as('addDomain', '/api/v1/domains', {}, { name: 'rotate.example.com' }),
    )
    await sql`
      update sending_domains
      set status = 'verified', verified_at = now(),
        dkim = jsonb_build_object('active', dkim->'pending', 'pending', null, 'retired', '[]'::jsonb,
          'activeFailedChecks', 0)
      where id = ${domain.id}`
    const [activeSelector] = await sql<{ selector: string }[]>`
      select dkim->'active'->>'selector' as selector from sending_domains where id = ${domain.id}`
    await as('rotateDomainDkim', `/api/v1/domains/${domain.id}/rotate-dkim`, { id: domain.id }, {})

    await as(
      'putDefaultSender',
      '/api/v1/sender',
      {},
      { from: 'News <news@rotate.example.com>', replyTo: null },
    )

    const hook = await readJson<{ id: string }>(
      await as(
        'addWebhook',
        '/api/v1/webhooks',
        {},
        { url: 'http://127.0.0.1:9/in', events: ['email.sent'] },
      ),
    )
    const test = await readJson<{ id: string }>(
      await as('testWebhook', `/api/v1/webhooks/${hook.id}/test`, { id: hook.id }, {}),
    )
    await as(
      'replayWebhookDelivery',
      `/api/v1/webhooks/${hook.id}/deliveries/${test.id}/replay`,
      { id: hook.id, deliveryId: test.id },
      {},
    )
    await as(
      'replayWebhookDeliveries',
      `/api/v1/webhooks/${hook.id}/deliveries/replay`,
      { id: hook.id },
      {
        ids: [test.id],
      },
    )

    // The settings page's forms (their server actions call these with the signed-in user).
    const user = { userId: null, label: 'owner@audited.test', ipAddress: ADDRESS }
    await saveTrackingSettingsForm(
      {
        tenantId: owner.tenantId,
        values: { trackOpens: true, trackClicks: false, trackingDisabled: true },
        actor: user,
      },
      { db },
    )
    const form = await saveDefaultSenderForm(
      { tenantId: owner.tenantId, values: { from: '', replyTo: '' }, actor: user },
      { db },
    )
    expect(form.saved).toEqual({ from: '', replyTo: '' })

    const rows = (
      await listTenantAuditPage(db, { tenantId: owner.tenantId, filter: {}, limit: 50 })
    ).reverse()
    const keyActor = `API key ${owner.apiKey.slice(0, 12)}`
    expect(rows.map((row) => [row.action, row.actor, row.ipAddress])).toEqual([
      ['domain.add', keyActor, ADDRESS],
      ['domain.dkim.rotate', keyActor, ADDRESS],
      ['sender.default.update', keyActor, ADDRESS],
      ['webhook.create', keyActor, ADDRESS],
      ['webhook.test', keyActor, ADDRESS],
      ['webhook.replay', keyActor, ADDRESS],
      ['webhook.replay', keyActor, ADDRESS],
      ['tracking.update', 'owner@audited.test', ADDRESS],
      ['sender.default.update', 'owner@audited.test', ADDRESS],
    ])
    const [, rotated, sender, , tested, replayed, , tracking, cleared] = rows
    const [pending] = await sql<{ selector: string }[]>`
      select dkim->'pending'->>'selector' as selector from sending_domains where id = ${domain.id}`
    expect(rotated).toMatchObject({
      targetType: 'domain',
      targetId: domain.id,
      details: {
        name: 'rotate.example.com',
        activeSelector: activeSelector?.selector,
        newSelector: pending?.selector,
      },
    })
    expect(sender).toMatchObject({
      targetType: 'tenant',
      targetId: owner.tenantId,
      details: { from: '"News" <news@rotate.example.com>', replyTo: null },
    })
    expect(tested).toMatchObject({
      targetType: 'webhook',
      targetId: hook.id,
      details: { deliveryId: test.id },
    })
    expect(replayed).toMatchObject({ targetId: hook.id, details: { deliveryIds: [test.id] } })
    expect(tracking?.details).toEqual({ trackOpens: true, trackClicks: false, trackingDisabled: true })
    expect(cleared?.details).toEqual({ from: null, replyTo: null })
  })

  it('an entry that cannot be written takes its change with it: both are one transaction', async () => {
    const owner = await seedTenant(harness, 'Rolled back')
    const { sql, db } = harness.database
    const actor = { userId: null, label: 'owner@rolled.test', ipAddress: ADDRESS }
    // A record the log refuses (target_id is NOT NULL): the insert fails inside the change's transaction.
    const broken = (what: AuditedWhat) => ({ actor, ...what, targetId: null as unknown as string })

    await expect(
      addDomain(
        {
          tenantId: owner.tenantId,
          name: 'never.example.com',
          audit: (added) => broken(audited.domainAdded(added)),
        },
        domainUseCaseDeps(harness.apiDeps()),
      ),
    ).rejects.toThrow()
    const [domains] = await sql<{ n: number }[]>`
      select count(*)::int as n from sending_domains where tenant_id = ${owner.tenantId}`
    expect(domains?.n).toBe(0)

    await expect(
      saveTrackingSettings(
        db,
        { tenantId: owner.tenantId, trackOpens: true, trackClicks: true, trackingDisabled: true },
        broken(
          audited.trackingSaved(owner.tenantId, {
            trackOpens: true,
            trackClicks: true,
            trackingDisabled: true,
          }),
        ),
      ),
    ).rejects.toThrow()
    const [tenantRow] = await sql<{ tracking_disabled: boolean }[]>`
      select tracking_disabled from tenants where id = ${owner.tenantId}`
    expect(tenantRow?.tracking_disabled).toBe(false)

    expect(await listTenantAuditPage(db, { tenantId: owner.tenantId, filter: {}, limit: 10 })).toEqual([])
  })
})
