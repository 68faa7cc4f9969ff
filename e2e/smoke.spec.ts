import { expect, test } from '@playwright/test'
import { E2E } from './playwright.config'

test('the landing page says what Fairlane is and links to sign-in', async ({ page }) => {
  await page.goto('/')
  await expect(page).toHaveTitle(/Fairlane/)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Email delivery with fairness built in')
  await expect(page.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/sign-in')
  await expect(page.getByRole('listitem')).toHaveCount(3)
  // A favicon, linked from every page and served.
  const icon = await page.locator('link[rel="icon"]').first().getAttribute('href')
  expect(icon).toBeTruthy()
  const served = await page.request.get(icon ?? '')
  expect(served.status()).toBe(200)
  expect(served.headers()['content-type']).toContain('image/svg+xml')
})

test('health: live answers 200, ready reports PostgreSQL and Redis up', async ({ request }) => {
  const live = await request.get('/api/health/live')
  expect(live.status()).toBe(200)
  const ready = await request.get('/api/health/ready')
  expect(ready.status()).toBe(200)
  const body = await ready.json()
  expect(body.status).toBe('ready')
  expect(body.checks.postgres.ok).toBe(true)
  expect(body.checks.redis.ok).toBe(true)
})

test('the mail sink inbox and the worker metrics answer', async ({ request }) => {
  const inbox = await request.get(`${E2E.inboxUrl}/health`)
  expect(inbox.status()).toBe(200)
  const anonymous = await request.get(`${E2E.metricsUrl}/metrics`)
  expect(anonymous.status()).toBe(401)
  const metrics = await request.get(`${E2E.metricsUrl}/metrics`, {
    headers: { authorization: `Bearer ${E2E.metricsToken}` },
  })
  expect(metrics.status()).toBe(200)
  expect(await metrics.text()).toContain('process_cpu_user_seconds_total')
})
