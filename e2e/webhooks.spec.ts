import { expect, type Page, test } from '@playwright/test'
import { signUp } from './support/accounts'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver'

/**
 * Webhooks from the tenant's side: an endpoint added on the Webhooks page (its signing secret shown
 * once), a test event sent and seen in the delivery log, and a replay. The receiver is a local HTTP
 * server the test starts (the e2e platform runs with WEBHOOK_ALLOW_PRIVATE=true, so http://127.0.0.1
 * is allowed). The platform's worker delivers.
 */

test.use({ permissions: ['clipboard-read', 'clipboard-write'] })

let receiver: WebhookReceiver | undefined
test.afterEach(async () => {
  await receiver?.close()
  receiver = undefined
})

/** Adds an endpoint for `email.sent` and `email.bounced` through the form; answers the secret it showed. */
async function addEndpoint(page: Page, url: string): Promise<string> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Webhooks')
  await page.getByLabel('URL').fill(url)
  await page.getByRole('checkbox', { name: 'email.sent' }).check()
  await page.getByRole('checkbox', { name: 'email.bounced' }).check()
  await page.getByRole('button', { name: 'Add endpoint' }).click()
  const secret = page.getByTestId('webhook-secret')
  await expect(secret).toHaveText(/^whsec_[A-Za-z0-9+/]{43}=$/)
  return (await secret.textContent()) ?? ''
}

async function openEndpoint(page: Page, url: string): Promise<void> {
  await page.getByRole('table', { name: 'Your webhook endpoints' }).getByRole('link', { name: url }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(url)
}

const logRows = (page: Page) => page.getByTestId('delivery-log').locator('tbody tr')

test('a tenant adds an endpoint (secret once), sends a test event, sees it in the log and replays it', async ({
  page,
}) => {
  test.setTimeout(90_000)
  // Never answers: with a worker, the attempt stays in flight (WEBHOOK_TIMEOUT_MS is 60 s in e2e), so
  // the delivery stays pending; without one, nothing attempts it.
  receiver = await startWebhookReceiver({ hang: true })
  await signUp(page)

  // A URL the platform refuses is said beside the field (the rule is the API's).
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click()
  await page.getByLabel('URL').fill('ftp://example.com/hooks')
  await page.getByRole('checkbox', { name: 'email.sent' }).check()
  await page.getByRole('button', { name: 'Add endpoint' }).click()
  await expect(page.getByText('url must start with https:// or http://')).toBeVisible()

  const secret = await addEndpoint(page, receiver.url)
  await page.getByRole('button', { name: 'Copy the signing secret' }).click()
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret)
  const row = page.getByRole('table', { name: 'Your webhook endpoints' }).getByRole('row').nth(1)
  await expect(row).toContainText(receiver.url)
  await expect(row).toContainText('email.sent, email.bounced')
  await expect(row.getByTestId('webhook-status')).toContainText('enabled')

  // Shown once: a fresh load of the page (or the endpoint's) does not carry it.
  await page.reload()
  expect(await page.content()).not.toContain(secret)
  await openEndpoint(page, receiver.url)
  expect(await page.content()).not.toContain(secret)

  await page.getByRole('button', { name: 'Send test event' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'A test event is on its way' })).toBeVisible()
  await expect(logRows(page)).toHaveCount(1)
  const delivery = logRows(page).first()
  await expect(delivery.getByTestId('delivery-event')).toHaveText('webhook.test')
  await expect(delivery.getByTestId('delivery-status')).toHaveText('pending')
  await expect(delivery).toContainText(/msg_[0-9a-f]{32}/)
  const webhookId = /msg_[0-9a-f]{32}/.exec((await delivery.textContent()) ?? '')?.[0]

  // Replay the checked deliveries: the same delivery (same webhook-id) is due again.
  await delivery.getByRole('checkbox').check()
  await page.getByRole('button', { name: 'Replay selected' }).click()
  await expect(page.getByRole('status').filter({ hasText: '1 delivery is sent again' })).toBeVisible()
  await expect(logRows(page)).toHaveCount(1)
  await expect(logRows(page).first()).toContainText(webhookId ?? 'no webhook-id')
  await expect(logRows(page).first().getByTestId('delivery-status')).toHaveText('pending')

  // Its attempts page: the body sent names the endpoint.
  await logRows(page).first().getByRole('link', { name: 'Attempts' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('webhook.test delivery')
  await expect(page.getByTestId('delivery-payload')).toContainText('"type": "webhook.test"')

  // Rotating the secret shows a new one, once.
  await page.getByRole('link', { name: '← Delivery log' }).click()
  page.once('dialog', (dialog) => dialog.accept())
  await page.getByRole('button', { name: 'Rotate secret' }).click()
  await expect(page.getByTestId('rotated-webhook-secret')).toHaveText(/^whsec_/)
  await expect(page.getByTestId('rotated-webhook-secret')).not.toHaveText(secret)
})

test('the receiver gets the test event; a delivery that failed is replayed and delivered with the same webhook-id', async ({
  page,
}) => {
  test.setTimeout(90_000)
  // Two 500s: the first attempt and the one retry of the e2e schedule (WEBHOOK_RETRY_SCHEDULE=1s) fail.
  receiver = await startWebhookReceiver({ failFirst: 2 })
  await signUp(page)
  await addEndpoint(page, receiver.url)
  await page.reload()
  await openEndpoint(page, receiver.url)
  await page.getByRole('button', { name: 'Send test event' }).click()

  // The attempts reach the receiver, signed, and are answered 500 until the delivery fails.
  await expect.poll(() => receiver?.received.length ?? 0, { timeout: 30_000 }).toBeGreaterThanOrEqual(1)
  const [first] = receiver.received
  expect(first?.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/)
  expect(first?.headers['webhook-signature']).toMatch(/^v1,/)
  expect(JSON.parse(first?.body ?? '{}')).toMatchObject({ type: 'webhook.test' })
  await expect(async () => {
    await page.reload()
    await expect(logRows(page).first().getByTestId('delivery-status')).toHaveText('failed')
  }).toPass({ timeout: 30_000 })
  await expect(logRows(page).first()).toContainText('500')
  expect(receiver.received).toHaveLength(2)

  // Replay it: one more attempt, delivered, with the same webhook-id.
  await logRows(page).first().getByRole('button', { name: 'Replay' }).click()
  await expect(page.getByRole('status').filter({ hasText: '1 delivery is sent again' })).toBeVisible()
  await expect(async () => {
    await page.reload()
    await expect(logRows(page).first().getByTestId('delivery-status')).toHaveText('delivered')
  }).toPass({ timeout: 30_000 })
  await expect(logRows(page).first().getByTestId('delivery-attempts')).toHaveText('3')
  expect(receiver.received.map((request) => request.answered)).toEqual([500, 500, 200])
  expect(new Set(receiver.received.map((request) => request.headers['webhook-id']))).toEqual(
    new Set([first?.headers['webhook-id']]),
  )
})
