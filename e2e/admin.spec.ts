import { randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import { type APIRequestContext, expect, test } from '@playwright/test'
import { createReceiverCounters } from '../packages/fairness/src/receivers/receiver-counters'
import { E2E } from './playwright.config'
import { signInAsAdmin, signUp } from './support/accounts'
import { screenshot } from './support/screenshots'

/**
 * The admin console in Chromium against the whole platform: a message failed by a 550 from the mail
 * sink is found in Dead letters and replayed with a reason once the fault is cleared; a plan is edited
 * (a bad value refused next to its field); the Fairness page draws two tenants' campaigns as they
 * send; the Receivers page shows "google" throttled and then recovering; a tenant user is refused with 403. Each page is screenshotted with data for the README
 * (docs/screenshots/admin-*.png with `SCREENSHOTS=docs`, see support/screenshots.ts).
 */

const ADMIN_BEARER = { authorization: `Bearer ${E2E.adminToken}` }
/** Relay, lane worker and SMTP, plus the page's 2-second poll. */
const DELIVERY_MS = 30_000

// The e2e package has no dependencies of its own: the db and queue packages' clients seed what MX mode writes.
const require = createRequire(import.meta.url)
const postgres = require('../packages/db/node_modules/postgres')
const { Redis } = require('../packages/queue/node_modules/ioredis')
const databaseUrl = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/fairlane')
databaseUrl.pathname = '/fairlane_e2e'

/** A tenant made through the admin API, with `count` contacts and a campaign due in a few seconds. */
async function tenantWithCampaign(
  request: APIRequestContext,
  options: { name: string; weight: number; count: number },
): Promise<{ id: string; name: string }> {
  const created = await request.post('/api/admin/tenants', {
    headers: ADMIN_BEARER,
    data: { name: options.name, plan: { ratePerSec: 4, burst: 4, weight: options.weight } },
  })
  expect(created.status()).toBe(201)
  const { id, apiKey } = (await created.json()) as { id: string; apiKey: string }
  const auth = { authorization: `Bearer ${apiKey}` }
  const contacts = Array.from({ length: options.count }, (_, index) => ({
    email: `reader-${index}-${id.slice(0, 8)}@fairness.example.test`,
  }))
  const imported = await request.post('/api/v1/contacts', { headers: auth, data: { contacts } })
  expect(imported.status()).toBe(200)
  const campaign = await request.post('/api/v1/campaigns', {
    headers: auth,
    data: {
      name: `${options.name} newsletter`,
      subject: 'News',
      html: '<p>News</p>',
      sendAt: new Date(Date.now() + 3_000).toISOString(),
    },
  })
  expect(campaign.status()).toBe(201)
  return { id, name: options.name }
}

test('a dead letter from a 550 is replayed with a reason, sent, and audited', async ({ page, request }) => {
  test.setTimeout(120_000)
  const to = `bounced-${randomUUID().slice(0, 8)}@example.test`
  const fault = await request.post(`${E2E.inboxUrl}/faults`, {
    data: { match: to, reply: '550 5.1.1 no such user' },
  })
  expect(fault.ok()).toBe(true)
  const accepted = await request.post('/api/v1/messages', {
    headers: { authorization: `Bearer ${E2E.demoApiKey}` },
    data: { to, subject: 'Your invoice', text: 'Attached.' },
  })
  expect(accepted.status()).toBe(202)
  const { id: messageId } = (await accepted.json()) as { id: string }

  await signInAsAdmin(page)
  // The overview turns red: a dead letter is waiting.
  await expect(page.getByTestId('overview-state')).toHaveAttribute('data-state', 'alert', {
    timeout: DELIVERY_MS,
  })
  await expect(page.locator('[data-alert="dead-letters"]')).toBeVisible()
  await expect(page.getByTestId('throughput-chart')).toBeVisible()
  // The worker runs the critical lane, so it steers the governor: its factor is in Redis, and charted.
  await expect(page.getByTestId('governor-state')).toContainText(/bulk runs at|Bulk yields/i)
  await expect(page.getByTestId('governor-chart').locator('svg.recharts-surface')).toBeVisible({
    timeout: 15_000,
  })
  await screenshot(page, 'admin-overview')

  await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Dead letters' }).click()
  await expect(page).toHaveURL(/\/admin\/dead-letters$/)
  await page.getByLabel('Error contains').fill('no such user')
  const row = page.locator(`tr[data-message-id="${messageId}"]`)
  await expect(row).toBeVisible({ timeout: DELIVERY_MS })
  await expect(row).toContainText('550 5.1.1 no such user')
  await expect(row).toContainText('default')
  await row.getByRole('button', { name: 'Details' }).click()
  const detail = page.getByTestId('dead-letter-detail')
  await expect(detail).toContainText(to)
  await expect(detail).toContainText('Your invoice')
  await expect(detail).toContainText('Demo Shop')
  await screenshot(page, 'admin-dead-letters')

  const cleared = await request.delete(`${E2E.inboxUrl}/faults`)
  expect(cleared.ok()).toBe(true)

  await row.getByRole('button', { name: 'Replay…' }).click()
  const dialog = page.getByRole('dialog', { name: /Replay dead letter/ })
  // No reason, no replay: the dialog says so next to the field.
  await dialog.getByRole('button', { name: 'Replay' }).click()
  await expect(dialog.getByRole('alert')).toHaveText('Give a reason: it goes into the audit log')
  await dialog.getByLabel(/Reason/).fill('Mailbox created by the customer')
  await dialog.getByRole('button', { name: 'Replay' }).click()
  await expect(page.getByTestId('action-notice')).toHaveText('Replayed 1 of 1.')
  await expect(row).toHaveCount(0)

  const audit = page.locator(`tr[data-audit-target="${messageId}"]`).first()
  await expect(audit).toContainText('dlq.replay')
  await expect(audit).toContainText(E2E.adminEmail)
  await expect(audit).toContainText('Mailbox created by the customer')
  await expect(audit.getByTestId('audit-message-status')).toHaveText('sent', { timeout: DELIVERY_MS })
})

test('a plan is edited on the Tenants page; a bad weight is refused next to its field', async ({
  page,
  request,
}) => {
  const name = `Plan Co ${randomUUID().slice(0, 6)}`
  const created = await request.post('/api/admin/tenants', { headers: ADMIN_BEARER, data: { name } })
  expect(created.status()).toBe(201)
  const { id } = (await created.json()) as { id: string }

  await signInAsAdmin(page)
  await page.goto('/admin/tenants')
  const row = page.locator(`tr[data-tenant="${id}"]`)
  await expect(row.getByTestId('tenant-plan')).toHaveText('10/s, burst 20, weight 1')
  await expect(row.getByTestId('tenant-plan-name')).toHaveText('standard')
  await row.getByRole('button', { name: 'Edit plan' }).click()
  const editor = page.getByTestId('plan-editor')
  await editor.getByLabel('Weight', { exact: true }).fill('0')
  await editor.getByRole('button', { name: 'Save plan' }).click()
  await expect(editor.getByLabel('Weight', { exact: true })).toHaveAttribute('aria-invalid', 'true')
  await expect(editor.getByLabel('Weight', { exact: true })).toHaveAccessibleDescription(/Must be at least 1/)
  await expect(row.getByTestId('tenant-plan')).toHaveText('10/s, burst 20, weight 1')

  await editor.getByLabel('Rate (per second)', { exact: true }).fill('25')
  await editor.getByLabel('Burst', { exact: true }).fill('50')
  await editor.getByLabel('Weight', { exact: true }).fill('3')
  await editor.getByRole('button', { name: 'Save plan' }).click()
  await expect(page.getByTestId('plan-notice')).toContainText(
    `Plan of ${name} is now 25/s, burst 50, weight 3`,
  )
  await expect(row.getByTestId('tenant-plan')).toHaveText('25/s, burst 50, weight 3')

  // A named plan and its transactional part and quotas: the fields that followed the plan follow the new one.
  await row.getByRole('button', { name: 'Edit plan' }).click()
  await editor.getByLabel('Named plan', { exact: true }).selectOption('free')
  await expect(editor.getByLabel('Daily quota', { exact: true })).toHaveValue('100')
  await expect(editor.getByLabel('Weight', { exact: true })).toHaveValue('3')
  await editor.getByLabel('Transactional rate (per second)', { exact: true }).fill('8')
  await editor.getByLabel('Transactional burst', { exact: true }).fill('')
  await editor.getByRole('button', { name: 'Save plan' }).click()
  await expect(editor.getByLabel('Transactional burst', { exact: true })).toHaveAccessibleDescription(
    /rate and burst together/,
  )
  await editor.getByLabel('Transactional burst', { exact: true }).fill('16')
  await editor.getByLabel('Monthly quota', { exact: true }).fill('2500')
  await editor.getByRole('button', { name: 'Save plan' }).click()
  await expect(page.getByTestId('plan-notice')).toContainText(
    `Plan of ${name} is now 25/s, burst 50, weight 3 (free;`,
  )
  await expect(row.getByTestId('tenant-plan-name')).toHaveText('free')
  await expect(row.getByTestId('tenant-limits')).toHaveText(
    'transactional 8/s, burst 16; quota 100/day, 2500/month',
  )
  const audited = await request.get(`/api/admin/audit?targetType=tenant&targetId=${id}`, {
    headers: ADMIN_BEARER,
  })
  const entries = (await audited.json()) as { action: string; details: { after?: { planName?: string } } }[]
  expect(entries.find((entry) => entry.action === 'tenant.plan.update')?.details.after?.planName).toBe('free')

  // Sorting by backlog and the 30-day history (empty until the nightly rollup has run).
  await page.getByRole('button', { name: /^Backlog/ }).click()
  await expect(page.getByRole('columnheader', { name: /Backlog/ })).toHaveAttribute('aria-sort', /ending/)
  await row.getByRole('button', { name: '30 days' }).click()
  await expect(page.getByTestId('tenant-history')).toContainText(`${name}: last 30 days`)

  const stored = await request.get('/api/admin/tenants', { headers: ADMIN_BEARER })
  const tenants = (await stored.json()) as { id: string; plan: unknown }[]
  expect(tenants.find((tenant) => tenant.id === id)?.plan).toEqual({
    ratePerSec: 25,
    burst: 50,
    weight: 3,
    transactional: { ratePerSec: 8, burst: 16 },
    quota: { daily: 100, monthly: 2500 },
  })
})

test('the Fairness page draws each tenant’s bulk sends while two campaigns run', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000)
  const tag = randomUUID().slice(0, 6)
  const [one, two] = await Promise.all([
    tenantWithCampaign(request, { name: `Fair One ${tag}`, weight: 1, count: 80 }),
    tenantWithCampaign(request, { name: `Fair Two ${tag}`, weight: 2, count: 80 }),
  ])

  await signInAsAdmin(page)
  await page.goto('/admin/fairness')
  const shares = page.getByTestId('shares-table')
  await expect(shares.locator(`tr[data-tenant="${one.id}"]`)).toBeVisible({ timeout: 60_000 })
  await expect(shares.locator(`tr[data-tenant="${two.id}"]`)).toBeVisible({ timeout: 60_000 })
  const chart = page.getByTestId('fairness-chart')
  await expect(chart).toContainText(one.name, { timeout: 60_000 })
  await expect(chart).toContainText(two.name, { timeout: 60_000 })
  await expect(chart.locator('.recharts-area')).not.toHaveCount(0)
  // A number once both tenants have sent in the same seconds (until then: no competition, "—").
  await expect(page.getByTestId('jain-index')).toHaveText(/^(0|1)\.\d{3}/, { timeout: 60_000 })
  await expect(page.getByTestId('first-send-table')).toContainText(`${one.name} newsletter`)
  // Half of each campaign sent (4/s each): enough of a curve for the README's picture.
  for (const tenant of [one, two]) {
    const sent = shares.locator(`tr[data-tenant="${tenant.id}"]`).getByTestId('share-sent')
    await expect
      .poll(async () => Number(await sent.textContent()), { timeout: 60_000 })
      .toBeGreaterThanOrEqual(40)
  }
  await screenshot(page, 'admin-fairness')

  // The Tenants page while they send: backlog and sends of the last minute.
  await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Tenants' }).click()
  const row = page.locator(`tr[data-tenant="${one.id}"]`)
  await expect(row.getByTestId('tenant-sent')).not.toHaveText('0')
  await screenshot(page, 'admin-tenants')
})

test('a tenant user gets 403 on /admin, and 403 JSON from the admin API', async ({ page }) => {
  await signUp(page)
  const response = await page.goto('/admin')
  expect(response?.status()).toBe(403)
  await expect(page.getByTestId('forbidden')).toContainText('403')
  const api = await page.request.get('/api/admin/queues')
  expect(api.status()).toBe(403)
  expect(((await api.json()) as { error: { code: string } }).error.code).toBe('forbidden')
})

test('nobody signed in: /admin sends to sign-in, the admin API answers 401', async ({ browser }) => {
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    await page.goto('/admin')
    await expect(page).toHaveURL(/\/sign-in$/)
    const api = await page.request.get('/api/admin/overview')
    expect(api.status()).toBe(401)
  } finally {
    await context.close()
  }
})

/**
 * What the worker's receiver gate writes when Gmail answers 421 4.7.28 (`receiver_states`, the AIMD
 * controller's state: rate halved from 600 to 300, paused for `pauseMs`) and what its counters record,
 * seeded directly: relay mode (the e2e platform's) never talks to a provider.
 */
async function seedThrottledGoogle(input: {
  egress: string
  tenantId: string
  pauseMs: number
  reply: string
}) {
  const nowMs = Date.now()
  const state = {
    ratePerMinute: 300,
    ceilingPerMinute: 600,
    floorPerMinute: 1,
    lastThrottledPerMinute: 600,
    pausedUntilMs: nowMs + input.pauseMs,
    throttledAtMs: nowMs,
    changedAtMs: nowMs,
  }
  const sql = postgres(databaseUrl.toString(), { max: 1 })
  try {
    await sql`insert into receiver_states (egress, provider, scope, state, paused_until, throttles, last_reply, throttled_at)
      values (${input.egress}, 'google', '', ${sql.json(state)}, ${new Date(state.pausedUntilMs)}, 1, ${input.reply}, now())`
  } finally {
    await sql.end()
  }
  const redis = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 })
  try {
    const counters = createReceiverCounters(redis, { prefix: `${E2E.queuePrefix}:` })
    const google = { provider: 'google', egress: input.egress, tenantId: input.tenantId }
    for (const kind of ['attempt', 'attempt', 'attempt', 'accepted', 'accepted', 'throttled'] as const)
      await counters.record({ ...google, kind })
    await counters.record({ ...google, kind: 'deferred' })
  } finally {
    redis.disconnect()
  }
}

test('the Receivers page shows google throttled, then recovering after its pause', async ({
  page,
  request,
}) => {
  test.setTimeout(60_000)
  // An address of the documentation range of its own, so parallel runs and other rows do not mix in.
  const egress = `192.0.2.${1 + Math.floor(Math.random() * 250)}`
  const tenantName = `Receivers ${randomUUID().slice(0, 6)}`
  const created = await request.post('/api/admin/tenants', {
    headers: ADMIN_BEARER,
    data: { name: tenantName },
  })
  expect(created.status()).toBe(201)
  const { id: tenantId } = (await created.json()) as { id: string }
  const reply = `421 4.7.28 [${egress}] Our system has detected an unusual rate of unsolicited mail originating from your IP address.`
  await signInAsAdmin(page)
  await seedThrottledGoogle({ egress, tenantId, pauseMs: 12_000, reply })

  await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Receivers' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Receivers')
  const row = page
    .getByRole('table', { name: 'Providers by egress address' })
    .locator(`tr[data-provider="google"][data-egress="${egress}"]`)
  await expect(row.getByTestId('receiver-state')).toHaveText('paused')
  await expect(row.getByTestId('receiver-rate')).toHaveText('0/min')
  await expect(row.getByTestId('receiver-paused-until')).not.toHaveText('—')
  await expect(row.getByTestId('receiver-last-reply')).toContainText('421 4.7.28')
  await expect(row.getByTestId('receiver-throttled')).toHaveText('1 / 1')
  await expect(row.getByTestId('receiver-deferred')).toHaveText('1 / 1')
  await expect(row.getByTestId('receiver-tenants')).toContainText(`${tenantName} 100%`)
  await expect(row).toContainText('600/min')
  await expect(page.getByTestId('receivers-chart').locator('.recharts-line')).not.toHaveCount(0)
  await screenshot(page, 'admin-receivers')

  // After the pause: at the cut rate, then climbing (20 a minute: a tenth every 0.3 s), not paused.
  await expect(row.getByTestId('receiver-state')).toHaveText('recovering', { timeout: 20_000 })
  await expect(row.getByTestId('receiver-paused-until')).toHaveText('—')
  const rate = async () => Number.parseFloat((await row.getByTestId('receiver-rate').textContent()) ?? '')
  const first = await rate()
  expect(first).toBeGreaterThanOrEqual(300)
  expect(first).toBeLessThan(600)
  await expect.poll(rate, { timeout: 10_000 }).toBeGreaterThan(first)

  // On a phone the table scrolls inside its box; the page itself stays the screen's width.
  await page.setViewportSize({ width: 390, height: 844 })
  await expect(row).toBeAttached()
  // Polled: the chart follows the new width through a ResizeObserver, a frame or two after the resize.
  await expect
    .poll(() =>
      page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
    )
    .toBeLessThanOrEqual(0)
})
