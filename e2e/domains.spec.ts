import { randomUUID } from 'node:crypto'
import { expect, test } from '@playwright/test'
import { E2E } from './playwright.config'
import { signUp } from './support/accounts'
import {
  addContact,
  addDomain,
  copyRecord,
  DELIVERY_DEADLINE_MS,
  escaped,
  mailTo,
  publish,
  publishAll,
  sendCampaignNow,
  setDefaultSender,
  shownRecord,
  uniqueAddress,
  uniqueDomain,
  unpublish,
} from './support/domains'
import { sinkMessages } from './support/mail-sink'

/**
 * Sender identity end to end: a tenant adds a domain, copies its DNS records, publishes them (the
 * test plays the DNS provider: the mail sink's DNS server, through its HTTP API), verifies the domain,
 * makes it the default sender, sends a campaign, and the mail arrives From the domain with a DKIM
 * signature the sink verified against the published record. Then what can go wrong: a bad name, a
 * key rotation, and a record that disappears (the domain fails, its mail is held, delete is refused).
 */

test.use({ permissions: ['clipboard-read', 'clipboard-write'] })

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
  await setDefaultSender(page, sender, 'Shop News')

  // One contact, one campaign sent now.
  const reader = uniqueAddress('reader')
  await addContact(page, reader, 'Rea Der')
  const subject = `Opening day ${randomUUID().slice(0, 8)}`
  await sendCampaignNow(page, subject)
  await expect(page.getByTestId('campaign-status')).toHaveText('sent', { timeout: DELIVERY_DEADLINE_MS })

  // At the sink: From the domain, signed for it, the signature verified against the published record.
  const mail = await mailTo(request, reader, subject, startedAt)
  expect(mail.from).toContain(sender)
  expect(mail.from).toContain('Shop News')
  expect(mail.headers['dkim-signature']).toContain(`d=${domain}`)
  // The envelope sender is the message's own VERP address on the domain's return-path host.
  expect(mail.envelope.from).toMatch(new RegExp(`@fl-bounces\\.${escaped(domain)}$`))
  expect(mail.auth).toMatchObject({
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

test("another tenant gets a 404 for a domain's page; deleting after confirming takes it off the list", async ({
  page,
  browser,
}) => {
  // Two sign-ups (10–30 s each on a busy machine).
  test.setTimeout(90_000)
  await signUp(page)
  const domain = uniqueDomain()
  await addDomain(page, domain)
  const domainUrl = page.url().replace(/\?.*$/, '')

  const other = await browser.newContext()
  try {
    const otherPage = await other.newPage()
    await signUp(otherPage)
    expect((await otherPage.goto(domainUrl))?.status()).toBe(404)
    expect((await otherPage.goto(`${domainUrl}?confirm=delete`))?.status()).toBe(404)
    await otherPage.goto('/domains')
    await expect(otherPage.getByText('No domains yet.')).toBeVisible()
  } finally {
    await other.close()
  }

  await page.goto(domainUrl)
  await page.getByRole('link', { name: 'Delete…' }).click()
  await expect(page.getByRole('heading', { name: `Delete ${domain}?` })).toBeVisible()
  await page.getByRole('button', { name: 'Delete domain' }).click()
  await expect(page).toHaveURL(/\/domains\?notice=deleted$/)
  await expect(page.getByRole('status')).toContainText('The domain was deleted')
  await expect(page.getByRole('link', { name: domain })).toHaveCount(0)
})

test('a domain whose DKIM record disappears fails after two checks: its mail is held, delete is refused, verifying again sends it', async ({
  page,
  request,
}) => {
  test.setTimeout(150_000)
  const startedAt = new Date()
  await signUp(page)
  const domain = uniqueDomain()
  await addDomain(page, domain)
  const domainUrl = page.url().replace(/\?.*$/, '')
  await publishAll(page, request)
  await page.getByRole('button', { name: 'Verify now' }).click()
  await expect(page.getByTestId('domain-status')).toHaveText('verified')
  const dkim = await shownRecord(page.getByTestId('record-dkim'))
  await setDefaultSender(page, `news@${domain}`)

  // The record disappears: one failed check does not stop a tenant's mail, the second does.
  await unpublish(request, dkim)
  await page.goto(domainUrl)
  await page.getByRole('button', { name: 'Verify now' }).click()
  const dkimRow = page.getByTestId('record-dkim')
  await expect(dkimRow.getByTestId('record-status')).toHaveText('pending')
  await expect(dkimRow.getByTestId('record-reason')).toContainText(`no TXT record found at ${dkim.name}`)
  await expect(page.getByTestId('domain-status')).toHaveText('verified')
  await page.getByRole('button', { name: 'Verify now' }).click()
  await expect(page.getByTestId('domain-status')).toHaveText('failed')
  await expect(page.getByTestId('failure-reason')).not.toBeEmpty()
  await expect(page.getByTestId('dkim-rotation')).toHaveAttribute('data-phase', 'held')
  await page.goto('/domains')
  await expect(page.getByRole('row', { name: new RegExp(escaped(domain)) })).toContainText('failed')

  // Mail from it is held, never sent unsigned.
  const reader = uniqueAddress('held')
  await addContact(page, reader, 'Hel D')
  const subject = `Held ${randomUUID().slice(0, 8)}`
  await sendCampaignNow(page, subject)
  const recipient = page
    .getByRole('table', { name: 'Recipients' })
    .getByRole('row', { name: new RegExp(escaped(reader)) })
  await expect(async () => {
    await page.reload()
    await expect(recipient).toContainText('held', { timeout: 500 })
  }).toPass({ timeout: DELIVERY_DEADLINE_MS, intervals: [500, 1000] })
  expect(await sinkMessages(request, { to: reader, since: startedAt })).toEqual([])

  // Deleting the domain now is refused, saying how many messages wait for it.
  await page.goto(`${domainUrl}?confirm=delete`)
  await page.getByRole('button', { name: 'Delete domain' }).click()
  await expect(page.getByRole('alert').filter({ hasText: 'still has 1 open message' })).toBeVisible()

  // The record is back: verifying releases the held mail, which goes out signed.
  await publish(request, dkim)
  await page.goto(domainUrl)
  await page.getByRole('button', { name: 'Verify now' }).click()
  await expect(page.getByTestId('domain-status')).toHaveText('verified')
  await expect(page.getByTestId('verify-result')).toContainText('1 held message goes out now')
  const mail = await mailTo(request, reader, subject, startedAt)
  expect(mail.auth).toMatchObject({ dkim: 'pass', dkimDomain: domain })
})
