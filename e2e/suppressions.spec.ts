import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { expect, type Page, test } from '@playwright/test'
import { signUp } from './support/accounts'

/**
 * The Suppressions page as a tenant uses it: find an address, see why it was suppressed before lifting
 * it (the bounce's own words), and import a CSV whose bad row is named by its line.
 */

// The e2e package has no dependencies of its own; entries are seeded with the db package's client.
const require = createRequire(import.meta.url)
const postgres = require('../packages/db/node_modules/postgres')
const databaseUrl = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/fairlane')
databaseUrl.pathname = '/fairlane_e2e'

const DIAGNOSTIC = '550 5.1.1 <gone@bounce.example.test>: no such user'

/** What the inbound server writes for a hard bounce and a complaint, straight into this tenant's list. */
async function seedSuppressions(company: string): Promise<void> {
  const sql = postgres(databaseUrl.toString(), { max: 1 })
  try {
    await sql`
      insert into suppressions (tenant_id, email, reason, scope, detail)
      select t.id, v.email, v.reason, 'all', v.detail
      from tenants t, (values
        ('gone@bounce.example.test', 'hard-bounce', ${DIAGNOSTIC}),
        ('angry@complaint.example.test', 'complaint', 'abuse'),
        ('kept@bounce.example.test', 'hard-bounce', '550 5.2.1 mailbox disabled')
      ) as v(email, reason, detail)
      where t.name = ${company}`
  } finally {
    await sql.end()
  }
}

const table = (page: Page) => page.getByRole('table', { name: 'Suppressed addresses' })

test('a tenant searches suppressions, removes one after seeing why it was suppressed', async ({ page }) => {
  test.setTimeout(90_000)
  const { company } = await signUp(page)
  await seedSuppressions(company)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Suppressions' }).click()
  await expect(page.getByRole('heading', { name: 'Suppressions', level: 1 })).toBeVisible()
  await expect(page.getByTestId('suppressed-hard-bounce')).toHaveText('2')
  await expect(table(page).locator('tbody tr')).toHaveCount(3)

  // A part of the address, any case; then a reason.
  await page.getByLabel('Search by address').fill('BOUNCE.example')
  await page.getByRole('button', { name: 'Search' }).click()
  await expect(table(page).locator('tbody tr')).toHaveCount(2)
  await page.getByLabel('Reason', { exact: true }).selectOption({ label: 'Spam complaint' })
  await page.getByRole('button', { name: 'Search' }).click()
  await expect(page.getByText('No suppressed address matches.')).toBeVisible()
  await page.getByLabel('Search by address').fill('gone')
  await page.getByLabel('Reason', { exact: true }).selectOption({ label: 'Hard bounce' })
  await page.getByRole('button', { name: 'Search' }).click()
  await expect(table(page).locator('tbody tr')).toHaveCount(1)
  const row = table(page).getByRole('row', { name: /gone@bounce\.example\.test/ })
  await expect(row).toContainText('Hard bounce')
  await expect(row).toContainText(DIAGNOSTIC)

  // The confirmation says why, in the bounce's own words, and what removing it does.
  await row.getByRole('button', { name: 'Remove gone@bounce.example.test from the suppression list' }).click()
  const dialog = page.getByRole('dialog', { name: 'Remove gone@bounce.example.test?' })
  await expect(dialog).toBeVisible()
  await expect(dialog).toContainText('because of: Hard bounce')
  await expect(dialog).toContainText(`“${DIAGNOSTIC}”`)
  await expect(dialog).toContainText('Sending will resume to this address')
  // Cancel leaves it listed.
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await expect(dialog).toBeHidden()
  await expect(table(page).locator('tbody tr')).toHaveCount(1)

  await row.getByRole('button', { name: 'Remove gone@bounce.example.test from the suppression list' }).click()
  await dialog.getByRole('button', { name: 'Remove and resume sending' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'was removed' })).toContainText(
    'gone@bounce.example.test was removed from the suppression list: mail to it will be sent again.',
  )
  // The search is kept; the address is gone from it and from the counts.
  await expect(page.getByLabel('Search by address')).toHaveValue('gone')
  await expect(page.getByText('No suppressed address matches.')).toBeVisible()
  await expect(page.getByTestId('suppressed-hard-bounce')).toHaveText('1')
})

test('a tenant imports a CSV of three addresses, sees the bad row by its line, and exports the list', async ({
  page,
}) => {
  test.setTimeout(90_000)
  const { company } = await signUp(page)
  await seedSuppressions(company)
  await page.goto('/suppressions')
  const csv = [
    'email,detail',
    'ada@import.example.test,Asked by phone',
    'grace@import.example.test,',
    'not an address,',
    'linus@import.example.test,Old provider list',
    '',
  ].join('\n')
  await page
    .getByLabel('CSV file', { exact: true })
    .setInputFiles({ name: 'suppress.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
  await page.getByRole('button', { name: 'Import', exact: true }).click()
  const report = page.getByTestId('suppression-import-report')
  await expect(report).toContainText('Import finished: 3 added, 0 already suppressed, 1 not imported.')
  const rejected = report.getByRole('table', { name: 'Rows not imported' }).locator('tbody tr')
  await expect(rejected).toHaveCount(1)
  await expect(rejected.first()).toContainText('4')
  await expect(rejected.first()).toContainText('not an address')
  await expect(rejected.first()).toContainText('invalid email')

  // The list shows them (the page refreshed under the report), as manual entries with their notes.
  await expect(table(page).locator('tbody tr')).toHaveCount(6)
  const ada = table(page).getByRole('row', { name: /ada@import\.example\.test/ })
  await expect(ada).toContainText('Added by hand')
  await expect(ada).toContainText('Asked by phone')
  await expect(page.getByTestId('suppressed-manual')).toHaveText('3')

  // Export: the CSV download holds every entry.
  const download = page.waitForEvent('download')
  await page.getByRole('link', { name: 'Export CSV' }).click()
  const file = await download
  expect(file.suggestedFilename()).toMatch(/^suppressions-\d{4}-\d{2}-\d{2}\.csv$/)
  const text = await readFile(await file.path(), 'utf8')
  const lines = text.trim().split('\r\n')
  expect(lines[0]).toBe('email,reason,scope,detail,created_at')
  expect(lines.slice(1).map((line) => line.split(',')[0])).toEqual([
    'ada@import.example.test',
    'angry@complaint.example.test',
    'gone@bounce.example.test',
    'grace@import.example.test',
    'kept@bounce.example.test',
    'linus@import.example.test',
  ])

  // The dashboard counts them by reason.
  await page.goto('/dashboard')
  const counts = page.getByTestId('suppression-counts')
  await expect(counts.getByRole('link', { name: '3 suppressed: Added by hand' })).toBeVisible()
  await expect(counts.getByRole('link', { name: '2 suppressed: Hard bounce' })).toBeVisible()
})
