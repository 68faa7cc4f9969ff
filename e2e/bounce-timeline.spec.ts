import { randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import { expect, test } from '@playwright/test'
import { E2E } from './playwright.config'
import { signUp } from './support/accounts'

// The e2e package has no dependencies of its own: the db package's client writes the MX-mode event.
const require = createRequire(import.meta.url)
const postgres = require('../packages/db/node_modules/postgres')
const databaseUrl = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/fairlane')
databaseUrl.pathname = '/fairlane_e2e'

/**
 * The feedback loop as a tenant sees it: a message the receiving side accepted and bounced later (the
 * mail sink sends a real DSN to the message's return path, through the inbound server) reads
 * "bounced" in the message log, and its page tells the story step by step with the server's words.
 * A deferral by a receiving provider (MX mode; the e2e platform runs in relay mode, so the event is
 * written as the MX worker writes it) reads with the provider's name, its words and the next try.
 */
test('a tenant opens a bounced message and sees its timeline with the diagnostic', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000)
  await signUp(page)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click()
  await page.getByLabel('Key name').fill('Bounce test')
  await page.getByRole('button', { name: 'Create key' }).click()
  const key = (await page.getByTestId('new-api-key').textContent()) ?? ''
  expect(key).toMatch(/^fl_/)

  const to = `gone-${randomUUID().slice(0, 8)}@bounce-timeline.example.test`
  const fault = await request.post(`${E2E.inboxUrl}/faults`, {
    data: { match: to, bounce: '5.1.1', times: 1 },
  })
  expect(fault.ok()).toBe(true)
  const accepted = await request.post('/api/v1/messages', {
    headers: { authorization: `Bearer ${key}` },
    data: { to, subject: 'Your order has shipped', text: 'It is on its way.' },
  })
  expect(accepted.status()).toBe(202)
  const { id } = await accepted.json()

  // Sent first (the sink said 250), then bounced when its DSN came back.
  await expect
    .poll(
      async () =>
        (
          await (
            await request.get(`/api/v1/messages/${id}`, { headers: { authorization: `Bearer ${key}` } })
          ).json()
        ).status,
      { timeout: 30_000, intervals: [250, 500, 1000] },
    )
    .toBe('bounced')

  await page.goto('/messages')
  const row = page.getByRole('row', { name: new RegExp(to.replace(/[.]/g, '\\.')) })
  await expect(row).toContainText(/bounced/i)
  await row.getByRole('link').first().click()
  await expect(page).toHaveURL(new RegExp(`/messages/${id}$`))
  const timeline = page.getByTestId('message-timeline')
  const steps = timeline.getByTestId('message-event')
  await expect(steps.first()).toHaveAttribute('data-type', 'accepted')
  await expect(timeline.locator('[data-testid="message-event"][data-type="sent"]')).toBeVisible()
  const bounce = timeline.locator('[data-testid="message-event"][data-type="bounced"]')
  await expect(bounce).toBeVisible()
  await expect(bounce).toContainText('5.1.1')
  await expect(bounce).toContainText(/User unknown/)
  await expect(steps.last()).toHaveAttribute('data-type', 'bounced')

  const sql = postgres(databaseUrl.toString(), { max: 1 })
  const reply =
    '421 4.7.28 Our system has detected an unusual rate of unsolicited mail originating from your IP address.'
  try {
    await sql`
      insert into message_events (tenant_id, message_id, type, detail)
      select tenant_id, id, 'deferred', ${sql.json({ untilMs: Date.now() + 180_000, provider: 'google', reply })}
      from messages where id = ${id}`
  } finally {
    await sql.end()
  }
  await page.reload()
  const deferred = timeline.locator('[data-testid="message-event"][data-type="deferred"]')
  await expect(deferred).toContainText(`Deferred by google: ${reply}, next try in 3 min`)

  // The address is suppressed for this tenant, with the bounce's words as the reason.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Suppressions' }).click()
  const suppressed = page
    .getByRole('table', { name: 'Suppressed addresses' })
    .getByRole('row', { name: new RegExp(to.replace(/[.]/g, '\\.')) })
  await expect(suppressed).toContainText('Hard bounce')
  await expect(suppressed).toContainText('5.1.1')
})
