import { randomUUID } from 'node:crypto'
import { expect, test } from '@playwright/test'
import { signUp } from './support/accounts'
import { screenshot } from './support/screenshots'

/**
 * API keys end to end: a key works for the public API from the moment it is created and stops
 * working once revoked. Each web process caches API-key lookups for API_KEY_CACHE_TTL_MS (5 s,
 * apps/web/src/server/auth/api-key-cache.ts), so the 401 after a revoke is polled for, with a
 * deadline of three TTLs, rather than expected on the very next request.
 */
const REVOKE_DEADLINE_MS = 15_000

test('create a key (shown once), send with it, revoke it: the API answers 401', async ({ page, request }) => {
  test.setTimeout(60_000)
  // A fixed, readable company name: this test also takes the dashboard screenshot for docs/.
  await signUp(page, { company: 'Northwind Coffee' })
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('API keys')

  await page.getByLabel('Key name').fill('Production server')
  await page.getByRole('button', { name: 'Create key' }).click()
  const shown = page.getByTestId('new-api-key')
  await expect(shown).toHaveText(/^fl_[A-Za-z0-9_-]{32}$/)
  const key = (await shown.textContent()) ?? ''
  const row = page.getByRole('row', { name: /Production server/ })
  await expect(row).toContainText(`${key.slice(0, 12)}…`)
  await expect(row).toContainText('Never')
  await expect(row).toContainText('active')

  // Shown once: a fresh load of the page lists the prefix only.
  await page.reload()
  await expect(page.getByTestId('new-api-key')).toHaveCount(0)
  expect(await page.content()).not.toContain(key)

  const recipient = `keys-${randomUUID()}@example.test`
  const send = () =>
    request.post('/api/v1/messages', {
      headers: { authorization: `Bearer ${key}` },
      data: { to: recipient, template: 'otp', variables: { code: '123456' } },
    })
  const accepted = await send()
  expect(accepted.status()).toBe(202)
  const receipt = await request.post('/api/v1/messages', {
    headers: { authorization: `Bearer ${key}` },
    data: { to: `receipts-${randomUUID()}@example.test`, subject: 'Your receipt', text: 'Thanks!' },
  })
  expect(receipt.status()).toBe(202)

  // The message shows in the log and on the dashboard; the key now has a last use.
  await page.goto('/messages')
  await expect(page.getByRole('cell', { name: recipient })).toBeVisible()
  await page.getByLabel('Lane').selectOption('default')
  await page.getByRole('button', { name: 'Filter' }).click()
  await expect(page).toHaveURL(/lane=default/)
  await expect(page.getByRole('cell', { name: recipient })).toHaveCount(0)
  await page.goto('/dashboard')
  await expect(page.getByRole('cell', { name: recipient })).toBeVisible()
  await screenshot(page, 'dashboard')

  await page.goto('/api-keys')
  await expect(page.getByRole('row', { name: /Production server/ })).not.toContainText('Never')
  await page.getByRole('link', { name: 'Revoke Production server' }).click()
  await expect(page.getByRole('heading', { name: 'Revoke “Production server”?' })).toBeVisible()
  await page.getByRole('button', { name: 'Revoke key' }).click()
  await expect(page.getByText('The key was revoked.')).toBeVisible()
  await expect(page.getByRole('row', { name: /Production server/ })).toContainText('revoked')

  await expect
    .poll(async () => (await send()).status(), {
      timeout: REVOKE_DEADLINE_MS,
      intervals: [100, 250, 500, 1000],
    })
    .toBe(401)
})

test('another tenant’s key id in the revoke URL is a 404 and revokes nothing', async ({ browser }) => {
  // Two sign-ups in one test: allow for a loaded machine.
  test.setTimeout(60_000)
  const first = await browser.newPage()
  await signUp(first)
  await first.goto('/api-keys')
  await first.getByLabel('Key name').fill('Mine')
  await first.getByRole('button', { name: 'Create key' }).click()
  await expect(first.getByTestId('new-api-key')).toBeVisible()
  const revokeHref = await first.getByRole('link', { name: 'Revoke Mine' }).getAttribute('href')

  const second = await browser.newPage()
  await signUp(second)
  const response = await second.goto(revokeHref ?? '/api-keys?revoke=missing')
  expect(response?.status()).toBe(404)
  const malformed = await second.goto('/api-keys?revoke=not-a-uuid')
  expect(malformed?.status()).toBe(404)

  await first.reload()
  await expect(first.getByRole('row', { name: /Mine/ })).toContainText('active')
  await Promise.all([first.close(), second.close()])
})
