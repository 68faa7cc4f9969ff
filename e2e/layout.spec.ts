import { expect, type Page, test } from '@playwright/test'
import { signUp } from './support/accounts'

/**
 * Tenant pages on a phone, and long values anywhere: nothing is wider than the screen, and the
 * first error of a refused form is scrolled into view and focused.
 */

const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

test.describe('at 390 px', () => {
  test.use({ viewport: { width: 390, height: 844 } })

  test('every tenant page fits the screen', async ({ page }) => {
    test.setTimeout(90_000)
    await signUp(page)
    const pages = [
      '/dashboard',
      '/account',
      '/contacts',
      '/contacts/new',
      '/contacts/import',
      '/lists',
      '/campaigns',
      '/campaigns/new',
      '/templates',
      '/templates/new',
      '/messages',
      '/api-keys',
      '/api-docs',
      '/webhooks',
    ]
    const wide: string[] = []
    for (const path of pages) {
      await page.goto(path)
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
      const extra = await overflow(page)
      if (extra > 0) wide.push(`${path} is ${extra} px too wide`)
    }
    expect(wide).toEqual([])
  })
})

test('a 5,000-character unbroken subject keeps the editor its width, and its error is shown and focused', async ({
  page,
}) => {
  await signUp(page)
  await page.goto('/campaigns/new')
  await page.getByLabel('Name', { exact: true }).fill('Long')
  await page.getByLabel('Subject').fill('x'.repeat(5000))
  await page.getByLabel('Save as draft (do not schedule yet)').check()
  await page.getByRole('button', { name: /Save draft|Schedule campaign/ }).click()
  const error = page.locator('#field-subject-error')
  await expect(error).toBeVisible()
  await expect(error).toBeInViewport()
  await expect(page.getByLabel('Subject')).toBeFocused()
  expect(await overflow(page)).toBeLessThanOrEqual(0)
})
