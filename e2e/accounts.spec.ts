import { expect, test } from '@playwright/test'
import { signIn, signOut, signUp } from './support/accounts'

// Each test signs up (a password hash and a few page loads): allow for a loaded machine.
test.describe.configure({ timeout: 60_000 })

test('sign up creates a tenant: the dashboard shows the company, its plan and the owner', async ({
  page,
}) => {
  const owner = await signUp(page, { company: `Bakery ${Date.now()}` })
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(owner.company)
  await expect(page.getByTestId('plan')).toContainText('Up to 10 emails per second')
  await expect(page.getByTestId('plan')).toContainText('bursts of 20 emails at once')
  await expect(
    page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }),
  ).toHaveAttribute('aria-current', 'page')
  await expect(page.getByText(owner.name)).toBeVisible()
  // A new tenant starts from a checklist; the first step is its contacts.
  const steps = page.getByTestId('first-steps')
  await expect(steps.getByRole('listitem')).toHaveCount(3)
  await expect(steps.getByRole('listitem').first()).toContainText('Add your contacts (to do)')
  await steps.getByRole('link', { name: 'Import contacts' }).click()
  await expect(page).toHaveURL(/\/contacts\/import$/)
})

test('sign out, then sign in again; signed-in users skip the sign-in page', async ({ page }) => {
  const owner = await signUp(page)
  await signOut(page)
  await page.goto('/dashboard')
  await expect(page).toHaveURL(/\/sign-in$/)

  await signIn(page, owner)
  await expect(page.getByTestId('tenant-name')).toHaveText(owner.company)
  await page.goto('/sign-in')
  await expect(page).toHaveURL(/\/dashboard$/)
})

test('a wrong password is answered next to the password field', async ({ page }) => {
  const owner = await signUp(page)
  await signOut(page)
  await page.getByLabel('Email').fill(owner.email)
  await page.getByLabel('Password').fill('not the right password')
  await page.getByRole('button', { name: 'Sign in' }).click()
  const password = page.getByLabel('Password')
  await expect(password).toHaveAttribute('aria-invalid', 'true')
  await expect(page.locator('#field-password-error')).toHaveText('Wrong email or password')
  await expect(password).toHaveAccessibleDescription('Wrong email or password')
  await expect(page.getByLabel('Email')).toHaveValue(owner.email)
  await expect(page).toHaveURL(/\/sign-in$/)
})

test('repeated wrong passwords are throttled, on the page and on the API route alike', async ({
  page,
  request,
}) => {
  const owner = await signUp(page)
  await signOut(page)
  // One attempt at a time: React resets the form once an action's answer lands (the password field
  // empties), so typing the next password before that would be wiped and sent empty.
  const tryPassword = async (password: string) => {
    await page.getByLabel('Email').fill(owner.email)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect(page.getByLabel('Password')).toHaveValue('', { timeout: 15_000 })
  }
  for (let attempt = 1; attempt <= 5; attempt++) {
    await tryPassword(`wrong password ${attempt}`)
    await expect(page.locator('#field-password-error')).toHaveText('Wrong email or password')
  }
  // Even the right password now waits: the lock counts this address from this client.
  await tryPassword(owner.password)
  // The lock is a minute from the fifth attempt; a slow machine reaches the sixth a second or more later.
  await expect(page.locator('.form-error')).toHaveText(
    /^Too many sign-in attempts\. Try again in (1 minute|[1-5]?[0-9] seconds)\.$/,
  )
  await expect(page).toHaveURL(/\/sign-in$/)

  // The same count holds on better-auth's HTTP route, whatever X-Forwarded-For claims.
  const answer = await request.post('/api/auth/sign-in/email', {
    headers: { 'x-forwarded-for': '198.51.100.23', 'x-fairlane-client-ip': '198.51.100.24' },
    data: { email: owner.email, password: owner.password },
  })
  expect(answer.status()).toBe(429)
  expect(Number(answer.headers()['retry-after'])).toBeGreaterThan(0)
  expect(await answer.json()).toMatchObject({ code: 'TOO_MANY_ATTEMPTS', limit: 'address' })
})

test('sign-up refuses a taken email and a short password next to the fields', async ({ page }) => {
  const owner = await signUp(page)
  await signOut(page)
  await page.goto('/sign-up')
  await page.getByLabel('Company name').fill('Copycat Ltd')
  await page.getByLabel('Your name').fill('Someone')
  await page.getByLabel('Email').fill(owner.email)
  await page.getByLabel('Password').fill('short')
  await page.getByRole('button', { name: 'Create account' }).click()
  await expect(page.locator('#field-password-error')).toHaveText('Use at least 10 characters')

  await page.getByLabel('Password').fill('a long enough password')
  await page.getByRole('button', { name: 'Create account' }).click()
  await expect(page.locator('#field-email-error')).toContainText('already exists')
  await expect(page).toHaveURL(/\/sign-up$/)
})

test('anonymous visitors of app pages are sent to sign in', async ({ page }) => {
  for (const path of ['/dashboard', '/messages', '/api-keys']) {
    await page.goto(path)
    await expect(page).toHaveURL(/\/sign-in$/)
  }
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign in')
})
