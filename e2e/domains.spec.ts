import { randomUUID } from 'node:crypto'
import { type APIRequestContext, expect, type Locator, type Page, test } from '@playwright/test'
import { E2E } from './playwright.config'
import { signUp } from './support/accounts'
import { type SinkMessage, sinkMessages } from './support/mail-sink'

/**
 * Sender identity end to end: a tenant adds a domain, copies its DNS records, publishes them (the
 * test plays the DNS provider: the mail sink's DNS server, through its HTTP API), verifies the domain,
 * makes it the default sender, sends a campaign, and the mail arrives From the domain with a DKIM
 * signature the sink verified against the published record.
 */

test.use({ permissions: ['clipboard-read', 'clipboard-write'] })

/** The dispatcher, pacer and SMTP after "Send now", and the sink's DKIM check. */
const DELIVERY_DEADLINE_MS = 30_000

interface PublishedRecord {
  type: string
  name: string
  value: string
}

/** A name under a real public suffix, unique per run: subdomains of example.com are not registrable. */
function uniqueDomain(): string {
  return `shop-${randomUUID().slice(0, 8)}.com`
}

/** The DNS provider of the test: the mail sink's DNS server, which web, worker and sink resolve through. */
async function publish(request: APIRequestContext, record: PublishedRecord): Promise<void> {
  const response = await request.post(`${E2E.inboxUrl}/dns/records`, { data: record })
  expect(response.ok(), `publishing ${record.type} ${record.name}: ${await response.text()}`).toBe(true)
}

async function unpublish(request: APIRequestContext, record: PublishedRecord): Promise<void> {
  const query = new URLSearchParams({ name: record.name, type: record.type })
  const response = await request.delete(`${E2E.inboxUrl}/dns/records?${query}`)
  expect(response.ok(), `removing ${record.type} ${record.name}: ${await response.text()}`).toBe(true)
}

/** A record's host name and value as the page shows them. */
async function shownRecord(row: Locator): Promise<PublishedRecord> {
  return {
    type: (await row.locator('td').first().textContent()) ?? '',
    name: (await row.getByTestId('record-name').textContent()) ?? '',
    value: (await row.getByTestId('record-value').textContent()) ?? '',
  }
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** Publishes every record the page lists, as shown (the rotation test's tenant types them in by hand). */
async function publishAll(page: Page, request: APIRequestContext): Promise<void> {
  const rows = page.locator('tr[data-testid^="record-"]')
  for (const row of await rows.all()) await publish(request, await shownRecord(row))
}

async function clipboardText(page: Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText())
}

/** Copies a record's host name and value with its buttons, checking each is confirmed and in the clipboard. */
async function copyRecord(page: Page, row: Locator, title: string): Promise<PublishedRecord> {
  const shown = await shownRecord(row)
  await row.getByRole('button', { name: `Copy host name of ${title}` }).click()
  await expect(row.getByRole('status').first()).toHaveText('Copied to the clipboard')
  const name = await clipboardText(page)
  expect(name).toBe(shown.name)
  await row.getByRole('button', { name: `Copy value of ${title}` }).click()
  await expect(row.getByRole('status').nth(1)).toHaveText('Copied to the clipboard')
  const value = await clipboardText(page)
  expect(value).toBe(shown.value)
  return { type: shown.type, name, value }
}

async function addDomain(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Domains' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Domains')
  await page.getByLabel('Domain name').fill(name)
  await page.getByRole('button', { name: 'Add domain' }).click()
  await expect(page).toHaveURL(/\/domains\/[0-9a-f-]{36}\?notice=added$/)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(name)
}

async function mailTo(
  request: APIRequestContext,
  to: string,
  subject: string,
  since: Date,
): Promise<SinkMessage> {
  let found: SinkMessage | undefined
  await expect(async () => {
    found = (await sinkMessages(request, { to, since })).find((message) => message.subject === subject)
    expect(found, `${to} has "${subject}"`).toBeDefined()
  }).toPass({ timeout: DELIVERY_DEADLINE_MS, intervals: [250, 500, 1000] })
  if (!found) throw new Error(`no "${subject}" for ${to}`)
  return found
}

test('add a domain, copy and publish its records, verify it, send a campaign from it: DKIM passes at the sink', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000)
  const startedAt = new Date()
  await signUp(page)
  const domain = uniqueDomain()
  await addDomain(page, domain)
  await expect(page.getByTestId('domain-status')).toHaveText('pending')

  // The records to publish: DKIM and the return path required, SPF and DMARC advice.
  const dkimRow = page.getByTestId('record-dkim')
  const returnPathRow = page.getByTestId('record-return-path')
  await expect(dkimRow).toHaveCount(1)
  await expect(dkimRow).toContainText('Required')
  await expect(dkimRow.getByTestId('record-name')).toHaveText(/^fl\d{6}[a-z2-7]{4}\._domainkey\./)
  await expect(dkimRow.getByTestId('record-value')).toHaveText(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]+$/)
  await expect(returnPathRow).toContainText('CNAME')
  await expect(page.getByTestId('record-spf')).toContainText('Advice')
  await expect(page.getByTestId('record-dmarc')).toContainText('Advice')
  for (const row of [dkimRow, returnPathRow])
    await expect(row.getByTestId('record-status')).toHaveText('pending')

  // Verifying before anything is published: still pending, and the page says what is missing.
  await page.getByRole('button', { name: 'Verify now' }).click()
  await expect(page.getByTestId('verify-result')).toContainText('required records are not verified yet')
  await expect(page.getByTestId('domain-status')).toHaveText('pending')

  // A wrong record is failed, and the page says what it found.
  const returnPath = await shownRecord(returnPathRow)
  await publish(request, { ...returnPath, value: 'elsewhere.example.net' })
  await page.getByRole('button', { name: 'Verify now' }).click()
  await expect(returnPathRow.getByTestId('record-status')).toHaveText('failed')
  await expect(returnPathRow).toContainText('Found: elsewhere.example.net')
  await unpublish(request, returnPath)

  // The tenant copies each record into their DNS provider: here, the sink's DNS server.
  const selector = (await dkimRow.getAttribute('data-selector')) ?? ''
  await publish(request, await copyRecord(page, dkimRow, `DKIM key ${selector}`))
  await publish(request, await copyRecord(page, returnPathRow, 'Return path'))
  await publish(request, await shownRecord(page.getByTestId('record-spf')))
  await publish(request, await shownRecord(page.getByTestId('record-dmarc')))

  await page.getByRole('button', { name: 'Verify now' }).click()
  await expect(page.getByTestId('verify-result')).toContainText(`${domain} is verified`)
  await expect(page.getByTestId('domain-status')).toHaveText('verified')
  for (const row of [dkimRow, returnPathRow])
    await expect(row.getByTestId('record-status')).toHaveText('verified')
  await expect(page.getByTestId('dkim-signing')).toHaveText(selector)
  await page.goto('/domains')
  await expect(page.getByRole('row', { name: new RegExp(escaped(domain)) })).toContainText('verified')

  // The default sender: every campaign without a From of its own goes from it.
  const sender = `news@${domain}`
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click()
  await page.getByLabel('Default sender').fill(`Shop News <${sender}>`)
  await page.getByRole('button', { name: 'Save sender' }).click()
  await expect(page.getByTestId('default-sender-saved')).toContainText(sender)

  // One contact, one campaign sent now.
  const reader = `reader-${randomUUID().slice(0, 8)}@example.test`
  await page.goto('/contacts/new')
  await page.getByLabel('Email').fill(reader)
  await page.getByLabel('Name').fill('Rea Der')
  await page.getByRole('button', { name: 'Add contact' }).click()
  await expect(page).toHaveURL(/\/contacts\/[0-9a-f-]{36}/)
  const subject = `Opening day ${randomUUID().slice(0, 8)}`
  await page.goto('/campaigns/new')
  await page.getByLabel('Name', { exact: true }).fill(subject)
  await page.getByLabel('Subject').fill(subject)
  await page.getByLabel('HTML body').fill('<p>Hello {{name}}, we are open.</p>')
  await page.getByLabel('Send now').check()
  await page.getByRole('button', { name: 'Schedule campaign' }).click()
  await expect(page).toHaveURL(/\/campaigns\/[0-9a-f-]{36}$/)
  await expect(page.getByTestId('campaign-status')).toHaveText('sent', { timeout: DELIVERY_DEADLINE_MS })

  // At the sink: From the domain, signed for it, the signature verified against the published record.
  const mail = await mailTo(request, reader, subject, startedAt)
  expect(mail.from).toContain(sender)
  expect(mail.headers['dkim-signature']).toContain(`d=${domain}`)
  // The envelope sender is the message's own VERP address on the domain's return-path host.
  expect((mail as SinkMessage & { envelope?: { from: string } }).envelope?.from).toMatch(
    new RegExp(`@fl-bounces\\.${escaped(domain)}$`),
  )
  expect((mail as SinkMessage & { auth?: { dkim: string; dkimDomain?: string } }).auth).toMatchObject({
    dkim: 'pass',
    dkimDomain: domain,
  })
  await page.goto(E2E.inboxUrl)
  const inboxRow = page.getByRole('row', { name: new RegExp(subject) })
  await expect(inboxRow).toContainText(sender)
  await expect(inboxRow).toContainText('DKIM pass')
  await expect(inboxRow).toContainText(`d=${domain}`)
})

test('a name that is not a registrable domain is refused beside the field, and so is a domain added twice', async ({
  page,
}) => {
  await signUp(page)
  await page.goto('/domains')
  const field = page.getByLabel('Domain name')
  await field.fill('co.uk')
  await page.getByRole('button', { name: 'Add domain' }).click()
  await expect(page.locator('#field-name-error')).toHaveText(/public suffix/)
  await expect(field).toHaveAttribute('aria-invalid', 'true')
  await expect(field).toBeFocused()
  await expect(field).toHaveValue('co.uk')

  await field.fill('localhost')
  await page.getByRole('button', { name: 'Add domain' }).click()
  await expect(page.locator('#field-name-error')).toHaveText(/local name/)

  const domain = uniqueDomain()
  await addDomain(page, domain)
  await page.goto('/domains')
  await page.getByLabel('Domain name').fill(domain)
  await page.getByRole('button', { name: 'Add domain' }).click()
  await expect(page.locator('#field-name-error')).toHaveText('is already one of your sending domains')
  await expect(page).toHaveURL(/\/domains$/)
})

test('rotate the DKIM key: the old key signs until the new record verifies, then may be removed a week later', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000)
  await signUp(page)
  const domain = uniqueDomain()
  await addDomain(page, domain)
  await publishAll(page, request)
  await page.getByRole('button', { name: 'Verify now' }).click()
  await expect(page.getByTestId('domain-status')).toHaveText('verified')
  const first = (await page.getByTestId('dkim-signing').textContent()) ?? ''

  await page.getByRole('button', { name: 'Rotate DKIM key' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'A new DKIM key was made' })).toBeVisible()
  await expect(page.getByTestId('dkim-rotation')).toHaveAttribute('data-phase', 'rotating')
  await expect(page.getByTestId('dkim-signing')).toHaveText(first)
  const next = (await page.getByTestId('dkim-pending').locator('code').textContent()) ?? ''
  expect(next).not.toBe(first)
  const dkimRows = page.getByTestId('record-dkim')
  await expect(dkimRows).toHaveCount(2)
  const nextRow = page.locator(`tr[data-selector="${next}"]`)
  await expect(nextRow.getByTestId('record-status')).toHaveText('pending')
  // The domain stays verified and signing with the first key while the new record is missing.
  await expect(page.getByTestId('domain-status')).toHaveText('verified')

  // A second rotation while one waits is refused, and the page says why beside the button.
  await page.getByRole('button', { name: 'Rotate DKIM key' }).click()
  await expect(page.getByRole('alert').filter({ hasText: 'Cannot rotate the DKIM key' })).toBeVisible()

  await publish(request, await shownRecord(nextRow))
  await page.getByRole('button', { name: 'Verify now' }).click()
  await expect(page.getByTestId('verify-result')).toContainText(`${domain} is verified`)
  await expect(page.getByTestId('dkim-signing')).toHaveText(next)
  await expect(page.getByTestId('dkim-pending')).toHaveCount(0)
  await expect(page.getByTestId('dkim-retired')).toContainText(first)
  await expect(page.getByTestId('dkim-retired')).toContainText('can be removed after')
  const oldRow = page.locator(`tr[data-selector="${first}"]`)
  await expect(oldRow).toContainText('Advice')
  await expect(oldRow.getByTestId('record-removable')).toContainText('Can be removed after')
})

test('delete a domain after confirming; it leaves the list', async ({ page }) => {
  await signUp(page)
  const domain = uniqueDomain()
  await addDomain(page, domain)
  await page.getByRole('link', { name: 'Delete…' }).click()
  await expect(page.getByRole('heading', { name: `Delete ${domain}?` })).toBeVisible()
  await page.getByRole('button', { name: 'Delete domain' }).click()
  await expect(page).toHaveURL(/\/domains\?notice=deleted$/)
  await expect(page.getByRole('status')).toContainText('The domain was deleted')
  await expect(page.getByRole('link', { name: domain })).toHaveCount(0)
})
