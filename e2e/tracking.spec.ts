import { randomUUID } from 'node:crypto'
import { expect, type Page, test } from '@playwright/test'
import { E2E } from './playwright.config'
import { signUp } from './support/accounts'
import { type SinkMessage, sinkMessages } from './support/mail-sink'

/**
 * Open and click tracking from the inbox to the campaign page: a campaign scheduled with tracking
 * on reaches the mail sink with its link rewritten and a pixel; the test opens that mail in the
 * browser (the pixel loads), clicks the tracked link (302 to the original), and the campaign's page
 * shows one unique open, one unique click and the link's row.
 */

const DELIVERY_DEADLINE_MS = 30_000
// A desktop browser's user agent: headless Chromium's own names itself a bot (isbot), and bots'
// hits are recorded but never counted.
test.use({
  userAgent:
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
})

async function createApiKey(page: Page): Promise<string> {
  await page.goto('/api-keys')
  await page.getByLabel('Key name').fill('Tracking')
  await page.getByRole('button', { name: 'Create key' }).click()
  const shown = page.getByTestId('new-api-key')
  await expect(shown).toHaveText(/^fl_/)
  return (await shown.textContent()) ?? ''
}

test('a tracked campaign’s page shows the open and the click made from the received mail', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000)
  const startedAt = new Date()
  await signUp(page)
  const apiKey = await createApiKey(page)
  const headers = { authorization: `Bearer ${apiKey}` }
  const reader = `reader-${randomUUID().slice(0, 8)}@example.test`
  const target = `${E2E.webUrl}/dashboard?from=newsletter&amp;edition=1`
  const contacts = await request.post('/api/v1/contacts', {
    headers,
    data: { contacts: [{ email: reader, name: 'Rita Reader' }] },
  })
  expect(contacts.status()).toBe(200)
  const created = await request.post('/api/v1/campaigns', {
    headers,
    data: {
      name: 'Tracked news',
      subject: 'Tracked news for {{name}}',
      html: `<html><body><p>Hello {{name}}</p><a href="${target}">Read the edition</a> <a href="mailto:help@example.test">Write to us</a></body></html>`,
      sendAt: new Date(Date.now() + 2_000).toISOString(),
      tracking: { opens: true, clicks: true },
    },
  })
  expect(created.status()).toBe(201)
  const campaignId = ((await created.json()) as { id: string }).id

  // Opened only once the send is recorded: a hit before that is taken for a link scanner's.
  await expect(async () => {
    const campaign = await request.get(`/api/v1/campaigns/${campaignId}`, { headers })
    expect(((await campaign.json()) as { counts: { sent: number } }).counts.sent).toBe(1)
  }).toPass({ timeout: DELIVERY_DEADLINE_MS, intervals: [250, 500, 1000] })
  let mail: SinkMessage | undefined
  await expect(async () => {
    mail = (await sinkMessages(request, { to: reader, since: startedAt }))[0]
    expect(mail?.html).toBeTruthy()
  }).toPass({ timeout: DELIVERY_DEADLINE_MS, intervals: [250, 500, 1000] })
  const html = mail?.html ?? ''
  expect(html).not.toContain('from=newsletter')
  expect(html).toContain('href="mailto:help@example.test"')
  expect(html).toMatch(new RegExp(`<img src="${E2E.webUrl}/t/o/[A-Za-z0-9_-]+"`))

  // The mail opened in the browser: its pixel loads. Then its link is followed through the redirect.
  const pixel = page.waitForResponse((response) => response.url().includes('/t/o/'))
  await page.setContent(html)
  expect((await pixel).status()).toBe(200)
  await page.getByRole('link', { name: 'Read the edition' }).click()
  await expect(page).toHaveURL(`${E2E.webUrl}/dashboard?from=newsletter&edition=1`)

  await page.goto(`/campaigns/${campaignId}`)
  await expect(page.getByTestId('engagement-delivered')).toHaveText('1')
  await expect(page.getByTestId('engagement-opened')).toHaveText('1')
  await expect(page.getByTestId('engagement-clicked')).toHaveText('1')
  const table = page.getByTestId('link-clicks-table')
  await expect(table.getByTestId('link-url')).toHaveText(`${E2E.webUrl}/dashboard?from=newsletter&edition=1`)
  await expect(table.getByTestId('link-clicks')).toHaveText('1')
  await expect(table.getByTestId('link-unique-clicks')).toHaveText('1')
  await expect(page.getByTestId('opens-chart')).toContainText('1 unique opens')
  const campaign = await request.get(`/api/v1/campaigns/${campaignId}`, { headers })
  expect(((await campaign.json()) as { counts: Record<string, number> }).counts).toMatchObject({
    opened: 1,
    clicked: 1,
  })
})

test('the settings page sets new campaigns’ tracking defaults and the no-tracking switch', async ({
  page,
}) => {
  test.setTimeout(60_000)
  await signUp(page)
  await page.goto('/campaigns/new')
  await expect(page.getByLabel('Track opens (a 1×1 image)')).not.toBeChecked()
  await page.goto('/settings')
  await page.getByLabel('Track opens of new campaigns').check()
  await page.getByLabel('Track clicks of new campaigns').check()
  await page.getByRole('button', { name: 'Save tracking' }).click()
  await expect(page.getByTestId('tracking-saved')).toHaveText('Saved.')
  await page.goto('/campaigns/new')
  await expect(page.getByLabel('Track opens (a 1×1 image)')).toBeChecked()
  await expect(page.getByLabel('Track clicks (links go through')).toBeChecked()
  await page.goto('/settings')
  await page.getByLabel('No tracking (privacy)').check()
  await page.getByRole('button', { name: 'Save tracking' }).click()
  await expect(page.getByTestId('tracking-saved')).toContainText('Nothing you send is tracked now.')
  await page.reload()
  await expect(page.getByLabel('No tracking (privacy)')).toBeChecked()
})
