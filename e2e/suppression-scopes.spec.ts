import { randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import { expect, type Page, test } from '@playwright/test'
import { signUnsubscribeToken, unsubscribeKey } from '../packages/core/src/unsubscribe/token'
import { E2E } from './playwright.config'
import { signUp } from './support/accounts'

/**
 * Suppression scopes as a person and a tenant see them: the unsubscribe page says what stops and what
 * still arrives, the contact page offers an audited resubscribe, and a test send's link says it is one.
 */

// The e2e package has no dependencies of its own; the tenant id is read with the db package's client.
const require = createRequire(import.meta.url)
const postgres = require('../packages/db/node_modules/postgres')
const databaseUrl = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/fairlane')
databaseUrl.pathname = '/fairlane_e2e'

const key = unsubscribeKey({ secrets: [E2E.unsubscribeKey], sessionSecret: E2E.sessionSecret })
const STILL_ARRIVE = 'Messages you ask for, such as sign-in codes and password resets, still reach you.'

async function addContact(page: Page, email: string): Promise<string> {
  await page.goto('/contacts/new')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Name', { exact: true }).fill('Reader')
  await page.getByRole('button', { name: 'Add contact' }).click()
  await expect(page).toHaveURL(/\/contacts\/[0-9a-f-]{36}/)
  const match = /\/contacts\/([0-9a-f-]{36})/.exec(page.url())
  if (!match?.[1]) throw new Error(`no contact id in ${page.url()}`)
  return match[1]
}

async function tokenFor(contactId: string): Promise<string> {
  const sql = postgres(databaseUrl.toString(), { max: 1 })
  try {
    const rows = await sql`select tenant_id from contacts where id = ${contactId}`
    return signUnsubscribeToken({ tenantId: rows[0].tenant_id, contactId, campaignId: randomUUID() }, key)
  } finally {
    await sql.end()
  }
}

test('the unsubscribe page says campaigns stop and sign-in codes still arrive', async ({ page }) => {
  test.setTimeout(60_000)
  const { company } = await signUp(page)
  const contactId = await addContact(page, `leaver-${randomUUID().slice(0, 8)}@example.test`)
  const token = await tokenFor(contactId)

  await page.goto(`/u/${token}`)
  await expect(page.locator('main')).toContainText(`Stop receiving campaigns from ${company}`)
  await expect(page.locator('main')).toContainText(STILL_ARRIVE)
  await page.getByRole('button', { name: 'Unsubscribe' }).click()
  await expect(page.getByRole('heading', { name: 'Unsubscribed' })).toBeVisible()
  await expect(page.locator('main')).toContainText(
    `You will not receive campaigns from ${company} any more. ${STILL_ARRIVE}`,
  )
})

test('the contact page shows the unsubscribe and resubscribes on the person’s request, audited', async ({
  page,
}) => {
  test.setTimeout(60_000)
  const { email: owner } = await signUp(page)
  const contactId = await addContact(page, `returner-${randomUUID().slice(0, 8)}@example.test`)
  const token = await tokenFor(contactId)
  await page.goto(`/u/${token}`)
  await page.getByRole('button', { name: 'Unsubscribe' }).click()
  await expect(page.getByRole('heading', { name: 'Unsubscribed' })).toBeVisible()

  await page.goto(`/contacts/${contactId}`)
  await expect(page.getByText('unsubscribed from campaigns', { exact: true })).toBeVisible()
  await expect(page.getByText('sign-in codes and password resets, still reach them')).toBeVisible()
  await page.getByRole('link', { name: 'Resubscribe (on their request)…' }).click()
  const form = page.getByRole('form', { name: 'Resubscribe on their request' })
  await expect(form).toBeVisible()

  // Without the confirmation the browser refuses to submit (and the server would too): nothing changes.
  const asked = form.getByLabel('The person asked me to send them campaigns again')
  await form.getByRole('button', { name: 'Resubscribe' }).click()
  expect(await asked.evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(true)
  await expect(page.getByText('unsubscribed from campaigns', { exact: true })).toBeVisible()

  await asked.check()
  await form.getByLabel('How did they ask?').fill('phoned the shop on Monday')
  await form.getByRole('button', { name: 'Resubscribe' }).click()
  await expect(
    page.getByText('Resubscribed on their request: campaigns reach this contact again.'),
  ).toBeVisible()
  await expect(page.getByText('subscribed', { exact: true })).toBeVisible()
  await expect(page.getByText('unsubscribed from campaigns', { exact: true })).toHaveCount(0)
  const audit = page.getByRole('region', { name: 'Audit log' })
  await expect(audit).toContainText(`resubscribed on their request by ${owner}`)
  await expect(audit).toContainText('phoned the shop on Monday')
})

test('a test send’s unsubscribe link says it is a test and changes nothing', async ({ page }) => {
  test.setTimeout(60_000)
  await signUp(page)
  await page.goto('/campaigns/new')
  await page.getByLabel('Subject').fill('Hello')
  await page.getByLabel('HTML body').fill('<p>Hi</p>')
  const link = page.frameLocator('[data-testid="preview-frame"]').getByRole('link', { name: 'Unsubscribe' })
  await expect(link).toBeVisible()
  const href = await link.getAttribute('href')
  expect(href).toBe(`${E2E.webUrl}/u/preview`)

  const response = await page.goto('/u/preview')
  expect(response?.status()).toBe(200)
  await expect(page.getByRole('heading', { name: 'Test message link' })).toBeVisible()
  await expect(page.locator('main')).toContainText('Nothing was changed')
  await expect(page.getByText('Invalid unsubscribe link')).toHaveCount(0)
})
