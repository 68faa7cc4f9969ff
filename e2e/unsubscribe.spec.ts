import { randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import { expect, type Page, test } from '@playwright/test'
import { signUnsubscribeToken, unsubscribeKey } from '../packages/core/src/unsubscribe/token'
import { E2E } from './playwright.config'
import { signUp } from './support/accounts'

/**
 * Unsubscribe links against the running platform: tokens are minted here with the platform's own
 * signing function and the e2e UNSUBSCRIBE_SECRET, for contacts made through the UI.
 */

// The e2e package has no dependencies of its own; the tenant id is read with the db package's client.
const require = createRequire(import.meta.url)
const postgres = require('../packages/db/node_modules/postgres')
const databaseUrl = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/fairlane')
databaseUrl.pathname = '/fairlane_e2e'

const key = unsubscribeKey({ secrets: [E2E.unsubscribeKey], sessionSecret: E2E.sessionSecret })
const campaignId = randomUUID()

async function addContact(page: Page, email: string): Promise<string> {
  await page.goto('/contacts/new')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Name').fill('Reader')
  await page.getByRole('button', { name: 'Add contact' }).click()
  await expect(page).toHaveURL(/\/contacts\/[0-9a-f-]{36}/)
  const match = /\/contacts\/([0-9a-f-]{36})/.exec(page.url())
  if (!match?.[1]) throw new Error(`no contact id in ${page.url()}`)
  return match[1]
}

async function tenantOf(contactId: string): Promise<string> {
  const sql = postgres(databaseUrl.toString(), { max: 1 })
  try {
    const rows = await sql`select tenant_id from contacts where id = ${contactId}`
    return rows[0].tenant_id as string
  } finally {
    await sql.end()
  }
}

test('the confirm page, the one-click POST, and a tampered token', async ({ page, request }) => {
  test.setTimeout(60_000)
  const { company } = await signUp(page)
  const id = randomUUID().slice(0, 8)
  const first = await addContact(page, `reader-${id}@example.test`)
  const second = await addContact(page, `oneclick-${id}@example.test`)
  const tenantId = await tenantOf(first)
  const token = signUnsubscribeToken({ tenantId, contactId: first, campaignId }, key)

  // A tampered token is refused with a clear 400 and changes nothing.
  const tampered = `${token.slice(0, 20)}${token[20] === 'A' ? 'B' : 'A'}${token.slice(21)}`
  const refused = await page.goto(`/u/${tampered}`)
  expect(refused?.status()).toBe(400)
  await expect(page.getByRole('heading', { name: 'Invalid unsubscribe link' })).toBeVisible()
  const forgedPost = await request.post(`/u/${tampered}`, {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    data: 'List-Unsubscribe=One-Click',
  })
  expect(forgedPost.status()).toBe(400)

  // GET only asks; the button unsubscribes.
  const shown = await page.goto(`/u/${token}`)
  expect(shown?.status()).toBe(200)
  await expect(page.getByText(company)).toBeVisible()
  await expect(page.getByText(`re${'*'.repeat(`reader-${id}`.length - 2)}@example.test`)).toBeVisible()
  await page.goto(`/contacts/${first}`)
  await expect(page.getByText('unsubscribed from campaigns', { exact: true })).toHaveCount(0)
  await page.goto(`/u/${token}`)
  await page.getByRole('button', { name: 'Unsubscribe' }).click()
  await expect(page.getByRole('heading', { name: 'Unsubscribed' })).toBeVisible()
  await page.goto(`/contacts/${first}`)
  await expect(page.getByText('unsubscribed from campaigns', { exact: true })).toBeVisible()

  // RFC 8058 one-click: a form POST, answered 200 at once, idempotent.
  const oneClick = signUnsubscribeToken({ tenantId, contactId: second, campaignId }, key)
  for (let attempt = 0; attempt < 2; attempt++) {
    const response = await request.post(`/u/${oneClick}`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      data: 'List-Unsubscribe=One-Click',
      maxRedirects: 0,
    })
    expect(response.status()).toBe(200)
  }
  await page.goto(`/contacts/${second}`)
  await expect(page.getByText('unsubscribed from campaigns', { exact: true })).toBeVisible()

  // The tampered attempts left the first contact's neighbour alone too.
  const untouched = await addContact(page, `untouched-${id}@example.test`)
  await page.goto(`/contacts/${untouched}`)
  await expect(page.getByText('unsubscribed from campaigns', { exact: true })).toHaveCount(0)
})
