import { expect, test } from '@playwright/test'
import { linkIn, mailFor, signIn, signOut, signUp } from './support/accounts'

// Sign-up, two sign-ins and a reset each hash a password: allow for a loaded machine.
test.describe.configure({ timeout: 90_000 })

test('forgot password → the mail at the sink → a new password signs in here and signs the other browser out', async ({
  page,
  browser,
}) => {
  const owner = await signUp(page)
  // A second browser (a forgotten laptop) signed in as the same person.
  const elsewhere = await browser.newContext()
  const other = await elsewhere.newPage()
  await signIn(other, owner)
  await signOut(page)

  await page.getByRole('link', { name: 'Forgot password?' }).click()
  await expect(page).toHaveURL(/\/forgot-password$/)
  const asked = new Date()
  await page.getByLabel('Email').fill(owner.email)
  await page.getByRole('button', { name: 'Send reset link' }).click()
  await expect(page.getByRole('status')).toContainText(`If an account uses ${owner.email}, we sent it a link`)

  const mail = await mailFor(page, owner.email, /^Reset your Fairlane password$/, asked)
  expect(mail.text).toContain('This link expires in 60 minutes.')
  const link = linkIn(mail)
  await page.goto(link)
  await expect(page).toHaveURL(/\/reset-password\?token=/)
  const newPassword = `new-${owner.password}`
  await page.getByLabel('New password').fill(newPassword)
  await page.getByRole('button', { name: 'Set new password' }).click()
  await expect(page).toHaveURL(/\/dashboard$/, { timeout: 15_000 })
  await expect(page.getByTestId('tenant-name')).toHaveText(owner.company)

  // The other browser's session went with the old password.
  await other.goto('/dashboard')
  await expect(other).toHaveURL(/\/sign-in$/)
  await other.getByLabel('Email').fill(owner.email)
  await other.getByLabel('Password').fill(owner.password)
  await other.getByRole('button', { name: 'Sign in' }).click()
  await expect(other.getByText('Wrong email or password')).toBeVisible()
  await signIn(other, { email: owner.email, password: newPassword })
  await elsewhere.close()

  // The link works once: used again, it says so and changes nothing.
  await page.goto(link)
  await expect(page).toHaveURL(/\/reset-password\?error=INVALID_TOKEN$/)
  await expect(page.getByTestId('invalid-reset-link')).toContainText('has not been changed')
})

test('an unknown address gets the same answer; forged reset links get a clear page', async ({ page }) => {
  await page.goto('/forgot-password')
  const nobody = `nobody-${Date.now()}@e2e.example.test`
  await page.getByLabel('Email').fill(nobody)
  await page.getByRole('button', { name: 'Send reset link' }).click()
  await expect(page.getByRole('status')).toContainText(`If an account uses ${nobody}, we sent it a link`)

  await page.getByLabel('Email').fill('not an address')
  await page.getByRole('button', { name: 'Send reset link' }).click()
  await expect(page.getByText('Enter an email address such as you@example.com')).toBeVisible()

  await page.goto('/api/auth/reset-password/forged-token-0123456789?callbackURL=%2Freset-password')
  await expect(page).toHaveURL(/\/reset-password\?error=INVALID_TOKEN$/)
  await expect(page.getByTestId('invalid-reset-link')).toBeVisible()

  // A token typed into the address bar is checked when the form is sent.
  await page.goto('/reset-password?token=forged-token-0123456789')
  await page.getByLabel('New password').fill('a perfectly good password')
  await page.getByRole('button', { name: 'Set new password' }).click()
  await expect(page.getByTestId('invalid-reset-link')).toBeVisible()
})
