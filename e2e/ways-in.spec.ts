import { randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import { expect, test } from '@playwright/test'
import { signUp } from './support/accounts'

/**
 * Every way in, from the tenant's side: a `sending` key, the SMTP settings beside it, a message with an
 * attachment submitted over SMTP by an app (nodemailer here) that shows on its message page with the
 * attachment listed, and a message scheduled through the API that is cancelled from the message list.
 * One sign-up for all of it (sign-ups are what make the e2e suite slow).
 */

/** The submission server of the platform under test (`SUBMISSION_PORT` in playwright.config.ts). */
const SUBMISSION_PORT = 2687

// The e2e package has no dependencies of its own: nodemailer is the submission app's (its tests' client).
const require = createRequire(import.meta.url)
const nodemailer = require('../apps/submission/node_modules/nodemailer') as {
  createTransport(options: Record<string, unknown>): {
    sendMail(mail: Record<string, unknown>): Promise<{ response: string }>
    close(): void
  }
}

test('a sending key, its SMTP settings, a submitted attachment on the message page, a scheduled send cancelled from the list', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000)
  await signUp(page)
  await page.goto('/api-keys')
  await page.getByLabel('Key name').fill('WordPress')
  await page.getByLabel('Scope').selectOption('sending')
  await page.getByRole('button', { name: 'Create key' }).click()
  const shown = page.getByTestId('new-api-key')
  await expect(shown).toHaveText(/^fl_[A-Za-z0-9_-]{32}$/)
  const key = (await shown.textContent()) ?? ''

  // The settings an app asks for, with a copy button.
  const settings = page.getByTestId('smtp-settings')
  await expect(settings).toContainText('127.0.0.1')
  await expect(settings).toContainText(`${SUBMISSION_PORT} with STARTTLS`)
  await expect(settings).toContainText('an API key')
  await expect(page.getByRole('button', { name: 'Copy SMTP settings' })).toBeVisible()

  // An app submits an invoice over SMTP with the key as its password (the platform's self-signed pair).
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: SUBMISSION_PORT,
    requireTLS: true,
    tls: { rejectUnauthorized: false },
    auth: { user: 'wordpress', pass: key },
  })
  const recipient = `smtp-${randomUUID()}@example.test`
  const info = await transport
    .sendMail({
      from: 'shop@example.test',
      to: recipient,
      subject: 'Your invoice',
      text: 'Your invoice is attached.',
      attachments: [
        {
          filename: 'invoice-1042.pdf',
          contentType: 'application/pdf',
          content: Buffer.from('%PDF-1.4\n%%EOF\n'),
        },
      ],
    })
    .finally(() => transport.close())
  const id = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/.exec(info.response)?.[0]
  expect(info.response, 'the 250 names the message id').toMatch(/^250 /)
  expect(id).toBeDefined()

  await page.goto(`/messages/${id}`)
  await expect(page.getByRole('heading', { name: 'Attachments' })).toBeVisible()
  await expect(page.getByRole('table', { name: 'Attachments' })).toContainText('invoice-1042.pdf')
  await expect(page.getByRole('table', { name: 'Attachments' })).toContainText('application/pdf')

  // A reminder for tomorrow, through the API with the same key; cancelled from the message list.
  const later = `scheduled-${randomUUID()}@example.test`
  const sendAt = new Date(Date.now() + 24 * 3600_000).toISOString()
  const scheduled = await request.post('/api/v1/messages', {
    headers: { authorization: `Bearer ${key}` },
    data: { to: later, subject: 'Reminder', text: 'See you tomorrow at 09:00.', sendAt },
  })
  expect(scheduled.status()).toBe(202)
  expect(await scheduled.json()).toMatchObject({ status: 'scheduled' })

  await page.goto('/messages')
  const row = page.getByRole('row', { name: new RegExp(later) })
  await expect(row).toContainText('scheduled')
  await row.getByTestId('cancel-message').click()
  await expect(page.getByTestId('messages-notice')).toContainText('Cancelled')
  await expect(page.getByRole('row', { name: new RegExp(later) })).toContainText('cancelled')
})
