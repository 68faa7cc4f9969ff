import { expect, test } from '@playwright/test'
import { linkIn, mailFor, signUp } from './support/accounts'

test.describe.configure({ timeout: 60_000 })

test('a new account is told to verify, can ask for a new link, and the link verifies it once', async ({
  page,
}) => {
  const owner = await signUp(page, { verify: false })
  const banner = page.getByTestId('standing-banner')
  await expect(banner).toContainText('Verify your email.')
  await expect(banner).toContainText(owner.email)
  // The campaign editor says why it cannot schedule yet, before anyone tries.
  await page.goto('/campaigns/new')
  await expect(page.getByTestId('send-refusal')).toContainText('Verify your email address first')

  // A forged link changes nothing and says so.
  await page.goto('/api/auth/verify-email?token=forged.token.here&callbackURL=%2Fverify-email')
  await expect(page).toHaveURL(/\/verify-email\?error=INVALID_TOKEN$/)
  await expect(page.getByTestId('invalid-verification-link')).toContainText('has not been verified')

  const asked = new Date()
  await page.getByRole('button', { name: 'Send a new verification link' }).click()
  await expect(page.getByRole('status')).toContainText(`Sent to ${owner.email}`)
  const mail = await mailFor(page, owner.email, /^Verify your email for Fairlane$/, asked)
  expect(mail.text).toContain('This link expires in 1440 minutes.')

  await page.goto(linkIn(mail))
  await expect(page).toHaveURL(/\/verify-email$/)
  await expect(page.getByTestId('email-verified')).toBeVisible()
  await page.goto('/dashboard')
  await expect(page.getByTestId('tenant-name')).toHaveText(owner.company)
  await expect(page.getByTestId('standing-banner')).toHaveCount(0)
  await page.goto('/campaigns/new')
  await expect(page.getByRole('heading', { name: 'New campaign' })).toBeVisible()
  await expect(page.getByTestId('send-refusal')).toHaveCount(0)

  // Opened again: still verified, nothing else happens.
  await page.goto(linkIn(mail))
  await expect(page.getByTestId('email-verified')).toBeVisible()
})
