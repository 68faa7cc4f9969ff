import { writeFileSync } from 'node:fs'
import { expect, type Page, test } from '@playwright/test'
import { signUp } from './support/accounts'
import { screenshot } from './support/screenshots'

/**
 * Contacts in the tenant app: the CSV import with its per-row report, lists, one contact's
 * lifecycle, and that another tenant's contact and list URLs are 404.
 */

const BAD_EMAIL_INDEX = 500
const DUPLICATE_INDEX = 800
const DUPLICATED_INDEX = 10

/** 1,000 data rows: row 500 has no valid email, row 800 repeats row 10's email in other case. */
function generatedCsv(): string {
  const lines = ['Email,Name,Plan']
  for (let i = 0; i < 1000; i += 1) {
    if (i === BAD_EMAIL_INDEX) lines.push('not-an-email,Broken Row,pro')
    else if (i === DUPLICATE_INDEX) lines.push(`USER${DUPLICATED_INDEX}@example.test,Again,free`)
    else lines.push(`user${i}@example.test,User ${i},${i % 2 === 0 ? 'pro' : 'free'}`)
  }
  return `${lines.join('\n')}\n`
}

/** The header is line 1, so data row i is on line i + 2. */
const lineOf = (index: number) => index + 2

/**
 * Picks the file and presses Import. A file on disk (`{ path }`) is read by the browser itself; a
 * buffer travels to it over the DevTools protocol, which for 26 MB took longer than the rest of its test.
 */
async function importCsv(page: Page, name: string, content: string | { path: string }): Promise<void> {
  await page.goto('/contacts/import')
  await page
    .getByLabel('CSV file')
    .setInputFiles(
      typeof content === 'string'
        ? { name, mimeType: 'text/csv', buffer: Buffer.from(content) }
        : content.path,
    )
  await page.getByRole('button', { name: 'Import' }).click()
}

test('imports 1,000 rows with two bad ones, reports exactly those, and builds a list', async ({ page }) => {
  test.setTimeout(90_000)
  await signUp(page)
  await importCsv(page, 'contacts.csv', generatedCsv())

  const report = page.getByTestId('import-report')
  await expect(page.getByRole('status').filter({ hasText: 'Import finished.' })).toBeVisible()
  await expect(page.getByRole('progressbar', { name: 'Import progress' })).toHaveAttribute('value', '100')
  await expect(report.getByTestId('imported-count')).toContainText('998')
  await expect(report.getByTestId('imported-count')).toContainText('998 new · 0 updated')
  await expect(report.getByTestId('rejected-count')).toHaveText('2')
  const rows = report.getByRole('table', { name: 'Rows not imported' }).locator('tbody tr')
  await expect(rows).toHaveCount(2)
  await expect(rows.nth(0)).toContainText(String(lineOf(BAD_EMAIL_INDEX)))
  await expect(rows.nth(0)).toContainText('invalid email "not-an-email"')
  await expect(rows.nth(1)).toContainText(String(lineOf(DUPLICATE_INDEX)))
  await expect(rows.nth(1)).toContainText(`duplicate email, first seen on line ${lineOf(DUPLICATED_INDEX)}`)
  await screenshot(page, 'contacts-import')

  await page.getByRole('link', { name: 'Back to contacts' }).click()
  await expect(page.getByText('998 contacts in total')).toBeVisible()
  await page.getByLabel('Search by email or name').fill('user10@')
  await page.getByRole('button', { name: 'Search' }).click()
  const found = page.getByRole('table', { name: 'Contacts' }).locator('tbody tr')
  await expect(found).toHaveCount(1)
  // The first row of a repeated email is the one kept.
  await expect(found).toContainText('User 10')

  await page.goto('/lists')
  await page.getByLabel('List name').fill('Newsletter')
  await page.getByRole('button', { name: 'Create list' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Newsletter' })).toBeVisible()
  await page.getByLabel('Email addresses').fill('USER1@example.test,\nnobody@example.test')
  await page.getByRole('button', { name: 'Add to list' }).click()
  await expect(page.getByText('Added 1. These are not your contacts yet')).toBeVisible()
  await expect(page.getByText('Added 1. These are not your contacts yet')).toContainText(
    'nobody@example.test',
  )
  await page.getByLabel('Email addresses').fill('user2@example.test user1@example.test')
  await page.getByRole('button', { name: 'Add to list' }).click()
  await expect(page.getByText('Added 1 (1 already on the list).')).toBeVisible()

  await page.getByLabel('Find contacts not on this list').fill('user3@')
  await page.getByRole('button', { name: 'Search' }).click()
  await page.getByLabel('user3@example.test (User 3)').check()
  await page.getByRole('button', { name: 'Add selected' }).click()
  await expect(page.getByText('Added 1 contact(s).')).toBeVisible()
  const members = page.getByRole('table', { name: 'Members' }).locator('tbody tr')
  await expect(members).toHaveCount(3)
  await page.getByRole('button', { name: 'Remove user2@example.test from the list' }).click()
  await expect(members).toHaveCount(2)
  await expect(page.getByText('2 members.')).toBeVisible()

  await page.goto('/lists')
  await expect(page.getByRole('row', { name: /Newsletter/ })).toContainText('2')
})

test('explains a wrong delimiter, a missing email column and an oversize file', async ({
  page,
}, testInfo) => {
  test.setTimeout(120_000)
  await signUp(page)
  await importCsv(page, 'pipes.csv', 'email|name\nann@example.test|Ann\n')
  await expect(page.getByRole('alert').filter({ hasText: /\w/ })).toContainText(
    'Could not find an email column; is the delimiter right?',
  )

  await importCsv(page, 'no-email.csv', 'address,name\nann@example.test,Ann\n')
  await expect(page.getByRole('alert').filter({ hasText: /\w/ })).toContainText(
    'the header row needs a column named email',
  )

  await importCsv(page, 'semicolons.csv', 'name;email\nAnn;ann@example.test\nBo;bo@example.test\n')
  await expect(page.getByTestId('imported-count')).toContainText('2')

  const huge = testInfo.outputPath('huge.csv')
  writeFileSync(huge, Buffer.alloc(26 * 1024 * 1024, 'a'))
  await importCsv(page, 'huge.csv', { path: huge })
  await expect(page.getByRole('alert').filter({ hasText: /\w/ })).toContainText(
    'huge.csv is 26 MB; the limit is 25 MB',
  )
})

test('accounts for every line after an unterminated quote: that row refused, the ones after it imported', async ({
  page,
}) => {
  await signUp(page)
  const lines = ['email,name']
  for (let row = 1; row <= 300; row += 1) {
    lines.push(row === 297 ? `"quote${row}@example.test,Never closed` : `row${row}@example.test,Row ${row}`)
  }
  await importCsv(page, 'quotes.csv', `${lines.join('\n')}\n`)

  const report = page.getByTestId('import-report')
  await expect(page.getByRole('status').filter({ hasText: 'Import finished.' })).toBeVisible()
  await expect(report.getByTestId('rows-read')).toHaveText('300')
  await expect(report.getByTestId('imported-count')).toContainText('299 new')
  const refused = report.getByRole('table', { name: 'Rows not imported' }).locator('tbody tr')
  await expect(refused).toHaveCount(1)
  await expect(refused).toContainText('298')
  await expect(refused).toContainText('a quoted field is opened and never closed')
  await page.goto('/contacts?q=row300%40')
  await expect(page.getByRole('table', { name: 'Contacts' }).locator('tbody tr')).toContainText('Row 300')
})

test('imports a CSV straight into a list', async ({ page }) => {
  await signUp(page)
  await page.goto('/lists')
  await page.getByLabel('List name').fill('From the fair')
  await page.getByRole('button', { name: 'Create list' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'From the fair' })).toBeVisible()

  await page.goto('/contacts/import')
  await page.getByLabel('Add the imported contacts to a list').selectOption({ label: 'From the fair' })
  await page.getByLabel('CSV file').setInputFiles({
    name: 'fair.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('email,name\nfair1@example.test,One\nfair2@example.test,Two\n'),
  })
  await page.getByRole('button', { name: 'Import' }).click()
  await expect(page.getByTestId('added-to-list')).toContainText('2 added to the list “From the fair”')
  await page.goto('/lists')
  await page.getByRole('link', { name: 'From the fair' }).click()
  await expect(page.getByRole('table', { name: 'Members' }).locator('tbody tr')).toHaveCount(2)

  // Every contact a search matches goes to a list in one step, not only the page shown.
  await page.goto('/lists')
  await page.getByLabel('List name').fill('Twos')
  await page.getByRole('button', { name: 'Create list' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Twos' })).toBeVisible()
  await page.goto('/contacts?q=fair2')
  await page.getByLabel('Add every contact matching “fair2” to').selectOption({ label: 'Twos' })
  await page.getByRole('button', { name: 'Add all matching' }).click()
  await expect(page.getByText('Added 1 matching contact to the list')).toBeVisible()
})

test('adds, edits, unsubscribes and deletes a contact; another tenant gets 404 for its URLs', async ({
  page,
  browser,
}) => {
  test.setTimeout(60_000)
  await signUp(page)
  await page.goto('/contacts/new')
  // The hint names an attribute as a variable, not the contact's own {{name}}.
  await expect(page.locator('#field-attributes-hint')).toContainText(
    'e.g. city: Berlin — usable in campaigns as {{city}}',
  )
  await page.getByLabel('Email').fill('not an email')
  await page.getByRole('button', { name: 'Add contact' }).click()
  await expect(page.getByText('must be a valid email address')).toBeVisible()
  await page.getByLabel('Email').fill('Dana@Example.test')
  await page.getByLabel('Name', { exact: true }).fill('Dana')
  await page.getByLabel('Attributes').fill('plan: pro\ncity: Hanoi')
  await page.getByRole('button', { name: 'Add contact' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'dana@example.test' })).toBeVisible()
  const contactUrl = page.url().replace(/\?.*$/, '')

  await page.getByLabel('Name', { exact: true }).fill('Dana Q')
  await page.getByRole('button', { name: 'Save changes' }).click()
  await expect(page.getByText('Changes saved.')).toBeVisible()
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('Dana Q')

  await page.getByRole('button', { name: 'Unsubscribe' }).click()
  await expect(
    page.getByText(
      'Unsubscribed from campaigns. Messages they ask for, such as sign-in codes and password resets, still reach them.',
    ),
  ).toBeVisible()
  await expect(page.getByRole('button', { name: 'Unsubscribe' })).toHaveCount(0)

  await page.goto('/lists')
  await page.getByLabel('List name').fill('Private list')
  await page.getByRole('button', { name: 'Create list' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Private list' })).toBeVisible()
  const listUrl = page.url().replace(/\?.*$/, '')

  const other = await browser.newContext()
  const otherPage = await other.newPage()
  await signUp(otherPage)
  expect((await otherPage.goto(contactUrl))?.status()).toBe(404)
  expect((await otherPage.goto(listUrl))?.status()).toBe(404)
  await other.close()

  await page.goto(contactUrl)
  await page.getByRole('link', { name: 'Delete contact…' }).click()
  await page.getByRole('button', { name: 'Yes, delete this contact' }).click()
  await expect(page.getByText('Contact deleted.')).toBeVisible()
  expect((await page.goto(contactUrl))?.status()).toBe(404)
})
