import { randomUUID } from 'node:crypto'
import { type APIRequestContext, expect, type Page, test } from '@playwright/test'
import { E2E } from './playwright.config'
import { signUp } from './support/accounts'
import { type SinkMessage, sinkMessages } from './support/mail-sink'
import { screenshot } from './support/screenshots'

/**
 * A campaign from scheduling to the inbox and back: scheduled in the editor, watched on its page
 * until it is sent, personalised mail with RFC 8058 headers at the mail sink, two recipients
 * unsubscribing through that mail (one-click POST and the confirm page), and a second campaign that
 * reaches only the one left, counting the other two as suppressed.
 */

const ONE_CLICK_BODY = 'List-Unsubscribe=One-Click'
/** `List-Unsubscribe: <APP_URL/u/<token>>`, APP_URL being the e2e web app the worker renders for. */
const LIST_UNSUBSCRIBE = new RegExp(`^<(${E2E.webUrl.replace(/[.]/g, '\\.')}/u/[A-Za-z0-9_.-]+)>$`)
/** Time for the dispatcher, pacer and SMTP after the send time, and for the page's next poll. */
const DELIVERY_DEADLINE_MS = 30_000

interface Reader {
  email: string
  name: string
}

/**
 * The editor takes wall times to the minute: the next whole minute (in UTC) at least `marginMs`
 * away, so the form is submitted before that time comes.
 */
function nextWholeMinute(marginMs: number): Date {
  return new Date(Math.ceil((Date.now() + marginMs) / 60_000) * 60_000)
}

async function importReaders(page: Page, readers: Reader[]): Promise<void> {
  const csv = ['email,name', ...readers.map((reader) => `${reader.email},${reader.name}`)].join('\n')
  await page.goto('/contacts/import')
  await page.getByLabel('CSV file').setInputFiles({
    name: 'readers.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(`${csv}\n`),
  })
  await page.getByRole('button', { name: 'Import' }).click()
  await expect(page.getByTestId('imported-count')).toContainText(`${readers.length} new`)
}

async function createApiKey(page: Page): Promise<string> {
  await page.goto('/api-keys')
  await page.getByLabel('Key name').fill('Campaigns')
  await page.getByRole('button', { name: 'Create key' }).click()
  const shown = page.getByTestId('new-api-key')
  await expect(shown).toHaveText(/^fl_/)
  return (await shown.textContent()) ?? ''
}

/** Waits for the campaign page's live progress to reach 100% and its status to read `sent`. */
async function watchUntilSent(page: Page, deadlineMs: number): Promise<void> {
  await expect(page.getByTestId('campaign-progress')).toHaveAttribute('data-progress', '100', {
    timeout: deadlineMs,
  })
  await expect(page.getByTestId('campaign-status')).toHaveText('sent', { timeout: DELIVERY_DEADLINE_MS })
}

/** Polls the sink until `reader` has the campaign whose subject is `subject`, and returns that mail. */
async function mailTo(
  request: APIRequestContext,
  reader: Reader,
  subject: string,
  since: Date,
): Promise<SinkMessage> {
  let found: SinkMessage | undefined
  await expect(async () => {
    const inbox = await sinkMessages(request, { to: reader.email, since })
    found = inbox.find((message) => message.subject === subject)
    expect(found, `${reader.email} has "${subject}"`).toBeDefined()
  }).toPass({ timeout: DELIVERY_DEADLINE_MS, intervals: [250, 500, 1000] })
  if (!found) throw new Error(`no "${subject}" for ${reader.email}`)
  return found
}

/** The RFC 8058 headers of one copy, and its unsubscribe URL (also the HTML footer's link). */
function unsubscribeUrlOf(mail: SinkMessage): string {
  expect(mail.headers['list-unsubscribe-post']).toBe(ONE_CLICK_BODY)
  const match = LIST_UNSUBSCRIBE.exec(mail.headers['list-unsubscribe'] ?? '')
  expect(match, `List-Unsubscribe of ${mail.to}: ${mail.headers['list-unsubscribe']}`).not.toBeNull()
  const url = match?.[1] ?? ''
  expect(mail.html).toContain(`href="${url}"`)
  return url
}

test('a scheduled campaign is delivered personalised with one-click unsubscribe, and the next one skips those who left', async ({
  page,
  browser,
  request,
}) => {
  // One sign-up (10–50 s), up to a minute until the editor's next whole minute, two deliveries.
  test.setTimeout(180_000)
  const startedAt = new Date()
  await signUp(page)
  const tag = randomUUID().slice(0, 8)
  const ann: Reader = { email: `ann-${tag}@example.test`, name: 'Ann Arbor' }
  const bo: Reader = { email: `bo-${tag}@example.test`, name: 'Bo Berg' }
  const cy: Reader = { email: `cy-${tag}@example.test`, name: 'Cy Coe' }
  const readers = [ann, bo, cy]
  await importReaders(page, readers)

  // The first campaign through the editor, at the next whole minute in UTC.
  await page.goto('/campaigns/new')
  await page.getByLabel('Name', { exact: true }).fill(`Autumn ${tag}`)
  await page.getByLabel('Subject').fill('Autumn news for {{name}}')
  await page.getByLabel('HTML body').fill('<p>Dear {{name}}, the leaves are turning.</p>')
  await page.getByLabel('At a date and time').check()
  await page.getByLabel('Time zone').selectOption('UTC')
  const sendAt = nextWholeMinute(8_000)
  const local = sendAt.toISOString().slice(0, 16)
  await page.getByLabel('Local date and time').fill(local)
  await expect(page.getByTestId('resolved-utc')).toContainText(`= ${local.replace('T', ' ')} UTC`)
  await page.getByRole('button', { name: 'Schedule campaign' }).click()
  await expect(page).toHaveURL(/\/campaigns\/[0-9a-f-]{36}$/)
  const firstUrl = page.url()
  await expect(page.getByTestId('campaign-status')).toHaveText('scheduled')

  // While it waits: a key for the second campaign, which the API schedules to the second.
  const apiKey = await createApiKey(page)

  await page.goto(firstUrl)
  await expect(page.getByRole('link', { name: 'Edit' })).toBeVisible()
  await watchUntilSent(page, sendAt.getTime() - Date.now() + DELIVERY_DEADLINE_MS)
  await expect(page.getByTestId('count-sent')).toHaveText('3')
  // The page was loaded while the campaign waited: its actions go with the live status, no reload.
  await expect(page.getByRole('link', { name: 'Edit' })).toHaveCount(0)
  await expect(page.getByRole('link', { name: 'Cancel campaign…' })).toHaveCount(0)

  // The campaign's recipients (read when the page loads), filterable; each opens the message's story.
  await page.reload()
  const recipients = page.getByRole('table', { name: 'Recipients' }).locator('tbody tr')
  await expect(recipients).toHaveCount(3)
  await page.getByLabel('Address contains').fill(readers[0]?.email ?? '')
  await page.getByLabel('Status', { exact: true }).selectOption('sent')
  await page.getByRole('button', { name: 'Filter' }).click()
  await expect(recipients).toHaveCount(1)
  await recipients.getByRole('link', { name: readers[0]?.email ?? '' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(readers[0]?.email ?? '')
  await expect(page.getByTestId('message-status')).toHaveText('sent')
  await expect(page.getByTestId('message-timeline')).toContainText('Accepted by the receiving server')
  // Its events, in order, the last with the server's reply.
  const events = page.getByTestId('message-event')
  await expect(events).toHaveCount(3)
  await expect(events.nth(0)).toContainText('Accepted (campaign dispatch)')
  await expect(events.nth(1)).toContainText('Queued for delivery')
  await expect(events.nth(2)).toContainText(/server reply\s*250 /)
  await expect(page.getByTestId('message-headers')).toContainText('Message-ID')
  await expect(page.getByTestId('campaign-content')).toContainText(
    'rendered for each recipient when it is sent',
  )
  await page.getByRole('link', { name: 'Back to the campaign' }).click()
  await expect(page).toHaveURL(firstUrl)

  // An API message keeps its rendered content while the retention allows: its page shows it.
  const receipt = await request.post('/api/v1/messages', {
    headers: { authorization: `Bearer ${apiKey}` },
    data: { to: 'receipt@example.test', subject: 'Your receipt', html: '<p>Thanks for order 1234</p>' },
  })
  expect(receipt.status()).toBe(202)
  const { id: receiptId } = await receipt.json()
  await expect
    .poll(
      async () =>
        (
          await (
            await request.get(`/api/v1/messages/${receiptId}`, {
              headers: { authorization: `Bearer ${apiKey}` },
            })
          ).json()
        ).status,
      { timeout: 15_000 },
    )
    .toBe('sent')
  await page.goto('/messages')
  await page.getByRole('link', { name: 'receipt@example.test' }).click()
  await expect(page.getByTestId('message-status')).toHaveText('sent')
  await expect(
    page.frameLocator('[data-testid="message-html"]').getByText('Thanks for order 1234'),
  ).toBeVisible()
  await expect(page.getByTestId('message-headers')).toContainText(`<${receiptId}@`)
  await screenshot(page, 'message-detail')
  await page.goto(firstUrl)
  await expect(page.getByTestId('count-suppressed')).toHaveText('0')

  // Each reader has a copy in their name, with their own unsubscribe link.
  const urls = new Map<Reader, string>()
  for (const reader of readers) {
    const mail = await mailTo(request, reader, `Autumn news for ${reader.name}`, startedAt)
    expect(mail.text).toContain(`Dear ${reader.name}, the leaves are turning.`)
    urls.set(reader, unsubscribeUrlOf(mail))
  }
  expect(new Set(urls.values()).size).toBe(readers.length)

  // Ann: the RFC 8058 one-click POST a mail client makes, to the URL from the header.
  const oneClick = await request.post(urls.get(ann) ?? '', {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    data: ONE_CLICK_BODY,
    maxRedirects: 0,
  })
  expect(oneClick.status()).toBe(200)

  // Bo: the footer link of the HTML part, opened and confirmed in a browser without a session.
  const boMail = await mailTo(request, bo, `Autumn news for ${bo.name}`, startedAt)
  const reader = await browser.newContext()
  try {
    const inbox = await reader.newPage()
    await inbox.setContent(boMail.html ?? '')
    await inbox.getByRole('link', { name: 'Unsubscribe' }).click()
    await expect(inbox).toHaveURL(urls.get(bo) ?? '')
    await inbox.getByRole('button', { name: 'Unsubscribe' }).click()
    await expect(inbox.getByRole('heading', { name: 'Unsubscribed' })).toBeVisible()
  } finally {
    await reader.close()
  }

  // The second campaign, a few seconds ahead: only Cy gets it; Ann and Bo count as suppressed.
  const secondSendAt = new Date(Date.now() + 3_000)
  const created = await request.post('/api/v1/campaigns', {
    headers: { authorization: `Bearer ${apiKey}` },
    data: {
      name: `Winter ${tag}`,
      subject: 'Winter news for {{name}}',
      html: '<p>Dear {{name}}, snow is coming.</p>',
      sendAt: secondSendAt.toISOString(),
    },
  })
  expect(created.status()).toBe(201)
  const second = (await created.json()) as { id: string; status: string }
  expect(second.status).toBe('scheduled')

  await page.goto(`/campaigns/${second.id}`)
  await watchUntilSent(page, secondSendAt.getTime() - Date.now() + DELIVERY_DEADLINE_MS)
  await expect(page.getByTestId('count-sent')).toHaveText('1')
  await expect(page.getByTestId('count-suppressed')).toHaveText('2')
  await expect(page.getByText('1 recipients now (2 unsubscribed and 0 suppressed left out)')).toBeVisible()

  const cyMail = await mailTo(request, cy, `Winter news for ${cy.name}`, startedAt)
  expect(cyMail.text).toContain(`Dear ${cy.name}, snow is coming.`)
  unsubscribeUrlOf(cyMail)
  // The campaign is sent (every message terminal), so what the sink lacks now it will not get.
  for (const left of [ann, bo]) {
    const inbox = await sinkMessages(request, { to: left.email, since: startedAt })
    expect(inbox.map((message) => message.subject)).toEqual([`Autumn news for ${left.name}`])
  }
})
