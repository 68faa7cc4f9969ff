import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { expect, test } from '@playwright/test'
import { signUp } from './support/accounts'
import { screenshot } from './support/screenshots'

/**
 * The API documentation as a developer meets it: the API keys page's curl quick-start carries the key
 * just created (and runs as shown), it links to the reference page, which renders the same OpenAPI
 * document `GET /api/v1/openapi.json` serves without a key.
 */
const run = promisify(execFile)

test('create a key, copy the curl quick-start with it, read the reference', async ({ page, request }) => {
  test.setTimeout(60_000)
  await signUp(page, { company: 'Northwind Coffee' })
  await page.goto('/api-keys')
  const quickStart = page.getByTestId('curl-quick-start')
  await expect(quickStart).toContainText('Authorization: Bearer $FAIRLANE_API_KEY')

  await page.getByLabel('Key name').fill('Docs key')
  await page.getByRole('button', { name: 'Create key' }).click()
  const key = (await page.getByTestId('new-api-key').textContent()) ?? ''
  expect(key).toMatch(/^fl_/)
  await expect(quickStart).toContainText(`Authorization: Bearer ${key}`)
  await expect(quickStart).toContainText('/api/v1/messages')

  // The command works as shown: curl, run by a shell, gets the 202 of an accepted message.
  const command = (await quickStart.textContent()) ?? ''
  const { stdout } = await run('sh', ['-c', `${command} --silent --show-error --write-out '\\n%{http_code}'`])
  const [answer, status] = stdout.trim().split('\n')
  expect(status).toBe('202')
  expect(JSON.parse(answer ?? '{}')).toMatchObject({ status: 'queued', lane: 'default' })

  await page.getByRole('link', { name: 'API reference' }).first().click()
  await expect(page).toHaveURL(/\/api-docs$/)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('API reference')
  const messages = page.locator('#sendMessage')
  await expect(
    messages.getByRole('heading', { name: /POST\s*\/api\/v1\/messages\s*Send one message/ }),
  ).toBeVisible()
  await expect(messages).toContainText('Idempotency-Key')
  await expect(messages.getByRole('cell', { name: '202', exact: true })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Campaigns', level: 2 })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Contacts', level: 2 })).toBeVisible()
  await screenshot(page, 'api-docs', { clip: { x: 0, y: 0, width: 1280, height: 2200 } })

  const document = await request.get('/api/v1/openapi.json')
  expect(document.status()).toBe(200)
  expect((await document.json()).openapi).toBe('3.1.0')
})
