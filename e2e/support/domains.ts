import { randomUUID } from 'node:crypto'
import { type APIRequestContext, expect, type Locator, type Page } from '@playwright/test'
import {
  publishDnsRecord,
  removeDnsRecord,
  type SinkDnsRecord,
  type SinkMessage,
  sinkMessages,
} from './mail-sink'

/**
 * The Domains page and the DNS it asks for, as a tenant meets them in e2e/domains.spec.ts: the test
 * plays the tenant's DNS provider with the mail sink's DNS server (`/dns/records` on its HTTP port),
 * which the web app, the worker and the sink all resolve through (DNS_SERVERS, set by the launcher).
 */

/** The dispatcher, pacer and SMTP after "Send now", and the sink's DKIM check. */
export const DELIVERY_DEADLINE_MS = 30_000

export type PublishedRecord = SinkDnsRecord

/** A name under a real public suffix, unique per run: subdomains of example.com are not registrable. */
export function uniqueDomain(): string {
  return `shop-${randomUUID().slice(0, 8)}.com`
}

/** The DNS provider of the test: the mail sink's DNS server, which web, worker and sink resolve through. */
export async function publish(request: APIRequestContext, record: PublishedRecord): Promise<void> {
  await publishDnsRecord(request, record)
}

export async function unpublish(request: APIRequestContext, record: PublishedRecord): Promise<void> {
  await removeDnsRecord(request, record.name, record.type)
}

/** A record's host name and value as the page shows them. */
export async function shownRecord(row: Locator): Promise<PublishedRecord> {
  return {
    type: ((await row.locator('td').first().textContent()) ?? '') as PublishedRecord['type'],
    name: (await row.getByTestId('record-name').textContent()) ?? '',
    value: (await row.getByTestId('record-value').textContent()) ?? '',
  }
}

export function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** Publishes every record the page lists, as shown (the rotation test's tenant types them in by hand). */
export async function publishAll(page: Page, request: APIRequestContext): Promise<void> {
  const rows = page.locator('tr[data-testid^="record-"]')
  for (const row of await rows.all()) await publish(request, await shownRecord(row))
}

export async function clipboardText(page: Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText())
}

/** Copies a record's host name and value with its buttons, checking each is confirmed and in the clipboard. */
export async function copyRecord(page: Page, row: Locator, title: string): Promise<PublishedRecord> {
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

export async function addDomain(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Domains' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Domains')
  await page.getByLabel('Domain name').fill(name)
  await page.getByRole('button', { name: 'Add domain' }).click()
  await expect(page).toHaveURL(/\/domains\/[0-9a-f-]{36}\?notice=added$/)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(name)
}

export async function mailTo(
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

/** Makes `address` (with a display name, if given) the tenant's default sender on the settings page. */
export async function setDefaultSender(page: Page, address: string, name?: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click()
  await page.getByLabel('Default sender').fill(name ? `${name} <${address}>` : address)
  await page.getByRole('button', { name: 'Save sender' }).click()
  await expect(page.getByTestId('default-sender-saved')).toContainText(address)
}

export async function addContact(page: Page, email: string, name: string): Promise<void> {
  await page.goto('/contacts/new')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Name').fill(name)
  await page.getByRole('button', { name: 'Add contact' }).click()
  await expect(page).toHaveURL(/\/contacts\/[0-9a-f-]{36}/)
}

/** A campaign to every subscribed contact, sent now from the editor; answers once it is on its page. */
export async function sendCampaignNow(page: Page, subject: string): Promise<void> {
  await page.goto('/campaigns/new')
  await page.getByLabel('Name', { exact: true }).fill(subject)
  await page.getByLabel('Subject').fill(subject)
  await page.getByLabel('HTML body').fill('<p>Hello {{name}}, we are open.</p>')
  await page.getByLabel('Send now').check()
  await page.getByRole('button', { name: 'Schedule campaign' }).click()
  await expect(page).toHaveURL(/\/campaigns\/[0-9a-f-]{36}$/)
}

export function uniqueAddress(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}@example.test`
}
