import { randomUUID } from 'node:crypto'
import { expect, type Page, test } from '@playwright/test'
import { E2E } from './playwright.config'
import { signUp } from './support/accounts'
import { screenshot } from './support/screenshots'

/**
 * The campaign editor end to end: variables, live preview for a contact, a test send through the
 * default lane, scheduling in a chosen zone (and a DST overlap answered explicitly), cancelling, and
 * another tenant's 404.
 */

async function addContact(page: Page, contact: { email: string; name: string; attributes?: string }) {
  await page.goto('/contacts/new')
  await page.getByLabel('Email').fill(contact.email)
  await page.getByLabel('Name').fill(contact.name)
  if (contact.attributes) await page.getByLabel('Attributes').fill(contact.attributes)
  await page.getByRole('button', { name: 'Add contact' }).click()
  await expect(page).toHaveURL(/\/contacts\/[0-9a-f-]{36}/)
}

/** The last Sunday of October: Berlin's clocks go back from 03:00 to 02:00, so 02:30 happens twice. */
function berlinFallBack(year: number): string {
  const day = new Date(Date.UTC(year, 9, 31))
  day.setUTCDate(31 - day.getUTCDay())
  return day.toISOString().slice(0, 10)
}

test('create a campaign with a variable, preview it, test-send it, schedule it in a zone, cancel it', async ({
  page,
  browser,
  request,
}) => {
  test.setTimeout(120_000)
  await signUp(page)
  const id = randomUUID().slice(0, 8)
  const ann = `ann-${id}@example.test`
  await addContact(page, { email: `bo-${id}@example.test`, name: 'Bo' })
  await addContact(page, { email: ann, name: 'Ann', attributes: 'city: Hanoi' })

  await page.goto('/campaigns')
  await page.getByRole('link', { name: 'New campaign' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('New campaign')
  await page.getByLabel('Name', { exact: true }).fill(`Summer news ${id}`)
  await page.getByLabel('Subject').fill('Hello {{name}}')
  await page.getByLabel('HTML body').fill('<h1>Summer</h1><p>Hi {{name}} from {{city}}{{nickname}}!</p>')

  // Live preview for Ann: her name and attribute filled in, the unknown variable warned about.
  await page.getByLabel('Preview for').selectOption({ label: `Ann <${ann}>` })
  await expect(page.getByTestId('preview-subject')).toHaveText('Hello Ann')
  const frame = page.frameLocator('[data-testid="preview-frame"]')
  await expect(frame.getByText('Hi Ann from Hanoi!')).toBeVisible()
  await expect(frame.getByRole('link', { name: 'Unsubscribe' })).toBeVisible()
  await expect(page.getByTestId('unknown-variables')).toContainText('{{nickname}}')

  // A test send goes through the default lane to the mail sink.
  const testAddress = `test-${id}@example.test`
  await page.getByLabel('Send a test to').fill(testAddress)
  await page.getByRole('button', { name: 'Send test' }).click()
  await expect(page.getByText(`Test sent to ${testAddress}`)).toBeVisible()
  await expect
    .poll(
      async () => {
        const inbox = await request.get(`${E2E.inboxUrl}/messages?to=${encodeURIComponent(testAddress)}`)
        return ((await inbox.json()) as { subject: string }[]).map((message) => message.subject)
      },
      { timeout: 20_000 },
    )
    .toContain('[Test] Hello Ann')

  // Schedule in Ho Chi Minh City (UTC+7, no DST): the UTC time is shown before saving.
  const year = new Date().getUTCFullYear() + 1
  await page.getByLabel('At a date and time').check()
  await page.getByLabel('Local date and time').fill(`${year}-07-01T09:00`)
  await page.getByLabel('Time zone').selectOption('Asia/Ho_Chi_Minh')
  await expect(page.getByTestId('resolved-utc')).toContainText(`${year}-07-01 02:00 UTC`)
  await screenshot(page, 'campaign-editor')
  await page.getByRole('button', { name: 'Schedule campaign' }).click()

  await expect(page).toHaveURL(/\/campaigns\/[0-9a-f-]{36}$/)
  const campaignUrl = page.url()
  await expect(page.getByTestId('campaign-status')).toHaveText('scheduled')
  await expect(page.getByTestId('send-local')).toHaveText(`${year}-07-01 09:00 Asia/Ho_Chi_Minh`)
  await expect(page.getByTestId('send-utc')).toHaveText(`${year}-07-01 02:00 UTC`)
  await expect(page.getByTestId('count-pending')).toHaveText('0')

  // Move it into Berlin's repeated hour: the editor asks which 02:30 is meant instead of guessing.
  await page.getByRole('link', { name: 'Edit' }).click()
  const day = berlinFallBack(year)
  await page.getByLabel('Local date and time').fill(`${day}T02:30`)
  await page.getByLabel('Time zone').selectOption('Europe/Berlin')
  await page.getByRole('button', { name: 'Schedule campaign' }).click()
  await expect(page.getByText(`${day} 02:30 happens twice in Europe/Berlin`)).toBeVisible()
  // The live readout asks before the server answers; wait for the server's answer (the error next to
  // the field) so its re-render cannot clear the choice made below.
  await expect(page.getByText('this time happens twice: choose which one')).toBeVisible()
  await page.getByLabel(/The second one, UTC\+01:00/).check()
  await page.getByRole('button', { name: 'Schedule campaign' }).click()
  await expect(page).toHaveURL(campaignUrl)
  await expect(page.getByTestId('send-local')).toHaveText(`${day} 02:30 Europe/Berlin`)
  await expect(page.getByTestId('send-utc')).toHaveText(`${day} 01:30 UTC`)

  await page.goto('/campaigns')
  await expect(page.getByRole('row', { name: new RegExp(`Summer news ${id}`) })).toContainText(
    `${day} 01:30 UTC`,
  )

  // Cancel, after confirming; a cancelled campaign cannot be edited.
  await page.goto(campaignUrl)
  await page.getByRole('link', { name: 'Cancel campaign…' }).click()
  await page.getByRole('button', { name: 'Yes, cancel the campaign' }).click()
  await expect(page.getByText('The campaign is cancelled.')).toBeVisible()
  await expect(page.getByTestId('campaign-status')).toHaveText('cancelled')
  await expect(page.getByRole('link', { name: 'Edit' })).toHaveCount(0)

  // Another tenant gets a 404 for the same URL.
  const other = await browser.newContext()
  try {
    const otherPage = await other.newPage()
    await signUp(otherPage)
    const response = await otherPage.goto(campaignUrl)
    expect(response?.status()).toBe(404)
    const edit = await otherPage.goto(`${campaignUrl}/edit`)
    expect(edit?.status()).toBe(404)
    const status = await otherPage.request.get(`${campaignUrl}/status`)
    expect(status.status()).toBe(404)
  } finally {
    await other.close()
  }
})

test('the editor asks about a skipped hour and offers the first valid time', async ({ page }) => {
  await signUp(page)
  await addContact(page, { email: `x-${randomUUID().slice(0, 8)}@example.test`, name: 'X' })
  await page.goto('/campaigns/new')
  await page.getByLabel('Name', { exact: true }).fill('Spring')
  await page.getByLabel('Subject').fill('Spring')
  const year = new Date().getUTCFullYear() + 1
  // The second Sunday of March: New York skips 02:00–03:00.
  const march = new Date(Date.UTC(year, 2, 1))
  march.setUTCDate(1 + ((7 - march.getUTCDay()) % 7) + 7)
  const day = march.toISOString().slice(0, 10)
  await page.getByLabel('Local date and time').fill(`${day}T02:30`)
  await page.getByLabel('Time zone').selectOption('America/New_York')
  await page.getByRole('button', { name: 'Schedule campaign' }).click()
  await page.getByRole('button', { name: `Use ${day} 03:00 instead` }).click()
  await expect(page).toHaveURL(/\/campaigns\/[0-9a-f-]{36}$/)
  await expect(page.getByTestId('send-local')).toHaveText(`${day} 03:00 America/New_York`)
  await expect(page.getByTestId('send-utc')).toHaveText(`${day} 07:00 UTC`)
})

test('a campaign for an audience that is empty now: scheduled for later with a warning, refused to send now', async ({
  page,
}) => {
  await signUp(page)
  await page.goto('/campaigns/new')
  await page.getByLabel('Name', { exact: true }).fill('Launch')
  await page.getByLabel('Subject').fill('We are live')
  await page.getByLabel('Send now').check()
  await page.getByRole('button', { name: 'Schedule campaign' }).click()
  await expect(page.getByText(/has no recipients/)).toBeVisible()
  await expect(page).toHaveURL(/\/campaigns\/new$/)

  const year = new Date().getUTCFullYear() + 1
  await page.getByLabel('At a date and time').check()
  await page.getByLabel('Local date and time').fill(`${year}-07-01T09:00`)
  await page.getByLabel('Time zone').selectOption('Europe/Berlin')
  await page.getByRole('button', { name: 'Schedule campaign' }).click()
  await expect(page).toHaveURL(/\/campaigns\/[0-9a-f-]{36}$/)
  await expect(page.getByTestId('campaign-status')).toHaveText('scheduled')
  await expect(page.getByTestId('empty-audience-warning')).toContainText(
    'The audience is empty now (0 unsubscribed and 0 suppressed left out). It is resolved at send time',
  )
})

test.describe('in a browser set to New York', () => {
  test.use({ timezoneId: 'America/New_York' })

  test('the time zone defaults to the browser’s, and a campaign schedules without picking one', async ({
    page,
  }) => {
    await signUp(page)
    await addContact(page, { email: `zone-${randomUUID()}@example.test`, name: 'Zed' })
    await page.goto('/campaigns/new')
    await expect(page.getByLabel('Time zone')).toHaveValue('America/New_York')
    await page.getByLabel('Name', { exact: true }).fill('Zone default')
    await page.getByLabel('Subject').fill('Hello')
    const year = new Date().getUTCFullYear() + 1
    await page.getByLabel('At a date and time').check()
    await page.getByLabel('Local date and time').fill(`${year}-07-01T09:00`)
    await page.getByRole('button', { name: 'Schedule campaign' }).click()
    await expect(page).toHaveURL(/\/campaigns\/[0-9a-f-]{36}$/)
    await expect(page.getByTestId('campaign-status')).toHaveText('scheduled')
    await expect(page.getByText(`${year}-07-01 09:00 America/New_York`)).toBeVisible()
  })
})
