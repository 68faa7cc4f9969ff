import { createRequire } from 'node:module'
import { expect, test } from '@playwright/test'
import { signUp } from './support/accounts'
import { addDomain, uniqueDomain } from './support/domains'

// The e2e package has no dependencies of its own; the user is marked verified with the db package's client.
const require = createRequire(import.meta.url)
const postgres = require('../packages/db/node_modules/postgres')
const databaseUrl = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/fairlane')
databaseUrl.pathname = '/fairlane_e2e'

/** Creating keys needs a verified address; this spec is about keys, not the verification mail. */
async function markVerified(email: string): Promise<void> {
  const sql = postgres(databaseUrl.toString(), { max: 1 })
  try {
    await sql`update users set email_verified = true where email = ${email}`
  } finally {
    await sql.end()
  }
}

/**
 * The tenant audit log's page: what the owner did is listed with who and from which address, the
 * filters narrow it, and a bad filter is said on the page instead of failing it.
 */
test('the audit log lists the owner’s changes, filters them and names a bad filter', async ({ page }) => {
  test.setTimeout(60_000)
  const owner = await signUp(page)
  const first = uniqueDomain()
  const second = uniqueDomain()
  await addDomain(page, first)
  await addDomain(page, second)

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Audit log')
  const table = page.getByRole('table', { name: 'Audit log entries' })
  // Newest first: the second domain's entry above the first's.
  const rows = table.getByRole('row').filter({ hasText: 'domain.add' })
  await expect(rows).toHaveCount(2)
  await expect(rows.nth(0)).toContainText(second)
  await expect(rows.nth(1)).toContainText(first)
  await expect(rows.nth(0)).toContainText(owner.email)
  // The address the web entry saw (the test browser's, on this machine).
  await expect(rows.nth(0)).toContainText(/127\.0\.0\.1|::1|::ffff:127\.0\.0\.1/)

  await page.getByLabel('Who').fill('nobody-by-this-name')
  await page.getByRole('button', { name: 'Filter' }).click()
  await expect(page).toHaveURL(/actor=nobody-by-this-name/)
  await expect(page.getByText('No entries match these filters.')).toBeVisible()

  await page.getByLabel('Who').fill(owner.email.slice(0, 12).toUpperCase())
  await page.getByLabel('Action').selectOption('domain.add')
  await page.getByRole('button', { name: 'Filter' }).click()
  await expect(table.getByRole('row').filter({ hasText: 'domain.add' })).toHaveCount(2)

  await page.goto('/audit?from=2026-13-01')
  await expect(page.getByText('“from” is not a day of the calendar.')).toBeVisible()
  await expect(table.getByRole('row').filter({ hasText: 'domain.add' })).toHaveCount(2)
})

test('a sending key: made on the API keys page, refused on contacts naming its scope, audited', async ({
  page,
  request,
}) => {
  test.setTimeout(60_000)
  const owner = await signUp(page)
  await markVerified(owner.email)
  await page.goto('/api-keys')
  await page.getByLabel('Key name').fill('App server')
  await page.getByLabel('Scope').selectOption('sending')
  await page.getByRole('button', { name: 'Create key' }).click()
  const shown = page.getByTestId('new-api-key')
  await expect(shown).toHaveText(/^fl_[A-Za-z0-9_-]{32}$/)
  const key = (await shown.textContent()) ?? ''
  const row = page.getByRole('row', { name: /App server/ })
  await expect(row).toContainText('Sending only')
  await expect(row).toContainText('Any')
  await expect(row).toContainText(owner.email)

  const refused = await request.post('/api/v1/contacts', {
    headers: { authorization: `Bearer ${key}` },
    data: { contacts: [{ email: 'someone@example.test' }] },
  })
  expect(refused.status()).toBe(403)
  const body = await refused.json()
  expect(body.error.code).toBe('forbidden')
  expect(body.error.message).toContain('"sending" scope')

  await page.goto('/audit?action=api_key.create')
  const entry = page
    .getByRole('table', { name: 'Audit log entries' })
    .getByRole('row', { name: /api_key\.create/ })
  await expect(entry).toContainText(owner.email)
  await expect(entry).toContainText('scope sending')
})
