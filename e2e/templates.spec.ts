import { randomUUID } from 'node:crypto'
import { expect, test } from '@playwright/test'
import { signUp } from './support/accounts'
import { screenshot } from './support/screenshots'

/**
 * Templates end to end: create one with a variable, see the preview warn about a variable the
 * contact does not have, save a change as version 2, start a campaign from it (the editor prefilled
 * with its content), duplicate that campaign, and delete the template after confirming.
 */
test('create a template, preview its variables, version it, start a campaign from it, duplicate the campaign', async ({
  page,
}) => {
  test.setTimeout(120_000)
  await signUp(page)
  const id = randomUUID().slice(0, 8)
  const ann = `ann-${id}@example.test`
  await page.goto('/contacts/new')
  await page.getByLabel('Email').fill(ann)
  await page.getByLabel('Name').fill('Ann')
  await page.getByLabel('Attributes').fill('city: Hanoi')
  await page.getByRole('button', { name: 'Add contact' }).click()
  await expect(page).toHaveURL(/\/contacts\/[0-9a-f-]{36}/)

  // The nav link sits next to Campaigns.
  const nav = page.getByRole('navigation', { name: 'Main' })
  const links = await nav.getByRole('link').allTextContents()
  expect(links.indexOf('Templates')).toBe(links.indexOf('Campaigns') + 1)
  await nav.getByRole('link', { name: 'Templates' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Templates')
  await page.getByRole('link', { name: 'New template' }).click()

  const slug = `welcome-${id}`
  await page.getByLabel('Slug').fill(slug)
  await page.getByLabel('Name', { exact: true }).fill(`Welcome ${id}`)
  await page.getByLabel('Subject').fill('Welcome, {{name}}')
  await page
    .getByLabel('HTML body')
    .fill('<h1>Welcome</h1><p>Hi {{name}} from {{city}}, your code is {{code}}.</p>')

  // The campaign editor's live preview: Ann's fields filled in, {{code}} warned about.
  await page.getByLabel('Preview for').selectOption({ label: `Ann <${ann}>` })
  await expect(page.getByTestId('preview-subject')).toHaveText('Welcome, Ann')
  const frame = page.frameLocator('[data-testid="preview-frame"]')
  await expect(frame.getByText('Hi Ann from Hanoi, your code is .')).toBeVisible()
  await expect(page.getByTestId('unknown-variables')).toContainText('{{code}}')
  await expect(page.getByTestId('unknown-variables')).not.toContainText('{{city}}')

  // A built-in name is refused next to the field.
  await page.getByLabel('Slug').fill('otp')
  await page.getByRole('button', { name: 'Create template' }).click()
  await expect(page.locator('#field-slug-error')).toContainText('built-in')
  await expect(page.getByLabel('Slug')).toBeFocused()

  await page.getByLabel('Slug').fill(slug)
  await page.getByRole('button', { name: 'Create template' }).click()
  await expect(page).toHaveURL(/\/templates\/[0-9a-f-]{36}\?notice=saved/)
  await expect(page.getByTestId('template-version')).toHaveText('1 (1 version saved)')

  // A change of content is the next version.
  await page.getByLabel('Subject').fill('Welcome aboard, {{name}}')
  await page.getByRole('button', { name: 'Save as a new version' }).click()
  await expect(page.getByTestId('template-version')).toHaveText('2 (2 versions saved)')
  await expect(page.getByTestId('preview-subject')).toHaveText('Welcome aboard, Ann')
  await expect(page.getByTestId('unknown-variables')).toContainText('{{code}}')
  await screenshot(page, 'templates')
  const templateUrl = page.url().replace(/\?.*$/, '')

  // The template's page fits a phone too (the send-it-with line wraps).
  await page.setViewportSize({ width: 390, height: 844 })
  await page.goto(templateUrl)
  await expect(page.getByTestId('template-version')).toBeVisible()
  expect(
    await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
  ).toBeLessThanOrEqual(0)
  await page.setViewportSize({ width: 1280, height: 720 })

  // Start a campaign from it: the editor opens with the template's content.
  await page.getByRole('link', { name: 'Start a campaign from this template' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('New campaign')
  await expect(page.getByTestId('from-template')).toContainText(`Welcome ${id}`)
  await expect(page.getByLabel('Subject')).toHaveValue('Welcome aboard, {{name}}')
  await expect(page.getByLabel('HTML body')).toHaveValue(/your code is \{\{code\}\}/)
  await page.getByLabel('Name', { exact: true }).fill(`Launch ${id}`)
  await page.getByLabel('Save as draft (do not schedule yet)').check()
  await page.getByRole('button', { name: 'Save draft' }).click()
  await expect(page).toHaveURL(/\/campaigns\/[0-9a-f-]{36}$/)
  const campaignUrl = page.url()

  // Duplicate it: a new draft with the same content, opened in the editor.
  await page.getByRole('button', { name: 'Duplicate' }).click()
  await expect(page).toHaveURL(/\/campaigns\/[0-9a-f-]{36}\/edit$/)
  expect(page.url()).not.toContain(campaignUrl)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Edit Copy of Launch ${id}`)
  await expect(page.getByLabel('Subject')).toHaveValue('Welcome aboard, {{name}}')
  await page.goto('/campaigns')
  await expect(page.getByRole('link', { name: `Launch ${id}`, exact: true })).toBeVisible()
  await expect(page.getByRole('link', { name: `Copy of Launch ${id}` })).toBeVisible()

  // Delete after confirming; the campaign keeps its copy.
  await page.goto(templateUrl)
  await page.getByRole('link', { name: 'Delete…' }).click()
  await expect(page.getByText('Campaigns started from it keep their own copy')).toBeVisible()
  await page.getByRole('button', { name: 'Yes, delete the template' }).click()
  await expect(page).toHaveURL(/\/templates\?notice=deleted/)
  await expect(page.getByRole('status')).toContainText(slug)
  await page.goto(campaignUrl)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Launch ${id}`)
})
