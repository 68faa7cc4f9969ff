import { randomUUID } from 'node:crypto'
import { expect, test } from '@playwright/test'
import { signUp } from './support/accounts'
import { screenshot } from './support/screenshots'

/**
 * Segments: a CSV with a city column, filtered on the contacts page, saved as a segment, chosen as a
 * campaign's audience and scheduled; the segment then cannot be deleted while that campaign waits.
 */
test('imports a CSV, filters city = Berlin, saves it as a segment and schedules a campaign to it', async ({
  page,
}) => {
  test.setTimeout(90_000)
  await signUp(page)
  const id = randomUUID().slice(0, 8)
  const rows = [
    ['ann', 'Ann', 'Berlin', 'pro'],
    ['bo', 'Bo', 'Berlin', 'team'],
    ['cy', 'Cy', 'Berlin', 'free'],
    ['di', 'Di', 'Hamburg', 'pro'],
    ['ed', 'Ed', 'berlin', 'pro'],
  ]
  const csv = `email,name,city,plan\n${rows.map(([who, name, city, plan]) => `${who}-${id}@example.test,${name},${city},${plan}`).join('\n')}\n`
  await page.goto('/contacts/import')
  await page
    .getByLabel('CSV file')
    .setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
  await page.getByRole('button', { name: 'Import' }).click()
  await expect(page.getByTestId('imported-count')).toContainText('5 new')

  // A mistyped operator is named, and nothing is filtered by it.
  await page.goto('/contacts')
  await page.getByLabel('Filter by attribute').fill('city ~ Berlin')
  await page.getByRole('button', { name: 'Search' }).click()
  await expect(page.getByRole('alert').filter({ hasText: 'Condition 1' })).toContainText(
    'Condition 1 (city ~ Berlin): unknown operator "~"',
  )
  await expect(page.getByRole('button', { name: 'Save as segment' })).toHaveCount(0)

  await page.getByLabel('Filter by attribute').fill('city = Berlin')
  await page.getByRole('button', { name: 'Search' }).click()
  await expect(page.getByTestId('matching-count')).toContainText('3 match the filter')
  const table = page.getByRole('table', { name: 'Contacts' })
  await expect(table.locator('tbody tr')).toHaveCount(3)
  await expect(table).not.toContainText(`ed-${id}`)
  await expect(table).not.toContainText(`di-${id}`)

  await page.getByLabel('Segment name').fill('Berliners')
  await page.getByRole('button', { name: 'Save as segment' }).click()
  await expect(page).toHaveURL(/\/segments\?notice=created/)
  const segments = page.getByRole('table', { name: 'Segments' })
  const row = segments.locator('tbody tr', { hasText: 'city = Berlin' })
  await expect(row).toContainText('3')
  await screenshot(page, 'segments')

  await row.getByRole('link', { name: 'New campaign' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('New campaign')
  await expect(page.getByLabel('Audience', { exact: true })).toHaveValue(/^segment:/)
  await expect(page.getByLabel('Audience', { exact: true }).locator('option:checked')).toHaveText(
    'Segment: Berliners',
  )
  await page.getByLabel('Name', { exact: true }).fill(`Berlin news ${id}`)
  await page.getByLabel('Subject').fill('Hallo {{name}}')
  await page.getByLabel('At a date and time').check()
  await page.getByLabel('Local date and time').fill(`${new Date().getUTCFullYear() + 1}-03-02T09:00`)
  await page.getByLabel('Time zone').selectOption('Europe/Berlin')
  await page.getByRole('button', { name: 'Schedule campaign' }).click()
  await expect(page).toHaveURL(/\/campaigns\/[0-9a-f-]{36}$/)
  await expect(page.getByTestId('campaign-status')).toHaveText('scheduled')
  await expect(page.getByTestId('campaign-audience')).toContainText('Segment: Berliners — 3 recipients now')

  // While the campaign waits for its send time, the segment stays; the refusal names the campaign.
  await page.goto('/segments')
  await page.getByRole('button', { name: 'Delete Berliners' }).click()
  await expect(page.getByRole('alert').filter({ hasText: 'is the audience of' })).toContainText(
    `“Berlin news ${id}” (scheduled)`,
  )
  await expect(page.getByRole('table', { name: 'Segments' })).toContainText('city = Berlin')
})
