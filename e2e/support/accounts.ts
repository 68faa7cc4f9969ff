import { randomUUID } from 'node:crypto'
import { expect, type Page } from '@playwright/test'
import { E2E } from '../playwright.config'
import { type SinkMessage, sinkMessages } from './mail-sink'

export interface Credentials {
  email: string
  password: string
  company: string
  name: string
}

/**
 * Signs up a fresh tenant through the real form (unique email per call) and waits for the dashboard,
 * so a suite can start signed in as a tenant nobody else touches. Returns what it typed.
 * Unless `verify: false`, it then verifies the email through the link of the mail at the sink, as a
 * person would, so the tenant may send campaigns and create API keys; it ends on the dashboard.
 */
export async function signUp(
  page: Page,
  options: { email?: string; password?: string; company?: string; name?: string; verify?: boolean } = {},
): Promise<Credentials> {
  const id = randomUUID().slice(0, 8)
  const credentials: Credentials = {
    email: options.email ?? `owner-${id}-${Date.now()}@e2e.example.test`,
    password: options.password ?? `pw-${randomUUID()}`,
    company: options.company ?? `E2E Company ${id}`,
    name: options.name ?? 'E2E Owner',
  }
  await page.goto('/sign-up')
  await page.getByLabel('Company name').fill(credentials.company)
  await page.getByLabel('Your name').fill(credentials.name)
  await page.getByLabel('Email').fill(credentials.email)
  await page.getByLabel('Password').fill(credentials.password)
  await page.getByRole('button', { name: 'Create account' }).click()
  await expect(page).toHaveURL(/\/dashboard$/, { timeout: 15_000 })
  await expect(page.getByTestId('tenant-name')).toHaveText(credentials.company)
  if (options.verify !== false) {
    // The link itself, without rendering the landing page (verifyEmail below does that): every suite
    // signs up, so this stays one request and one reload.
    const link = linkIn(await mailFor(page, credentials.email, /^Verify your email/))
    const verified = await page.request.get(link, { maxRedirects: 0 })
    expect(verified.status(), 'the verification link redirects to its landing page').toBe(302)
    expect(verified.headers().location).toBe('/verify-email')
    await page.reload()
    await expect(page.getByTestId('tenant-name')).toHaveText(credentials.company)
  }
  return credentials
}

/** The newest mail at the sink for `to` whose subject matches, waiting for it to arrive. */
export async function mailFor(page: Page, to: string, subject: RegExp, since?: Date): Promise<SinkMessage> {
  let found: SinkMessage | undefined
  await expect
    .poll(
      async () => {
        const mails = await sinkMessages(page.request, { to, ...(since ? { since } : {}) })
        found = mails.filter((mail) => subject.test(mail.subject)).at(-1)
        return found !== undefined
      },
      { timeout: 15_000, intervals: [100, 200, 300], message: `a mail to ${to} with subject ${subject}` },
    )
    .toBe(true)
  return found as SinkMessage
}

/** The first link in a mail's text part. */
export function linkIn(mail: SinkMessage): string {
  const link = /https?:\/\/\S+/.exec(mail.text)?.[0]
  if (!link) throw new Error(`no link in the mail "${mail.subject}"`)
  return link
}

/** Opens the verification link mailed to `email` and waits for the page that says it worked. */
export async function verifyEmail(page: Page, email: string): Promise<void> {
  const mail = await mailFor(page, email, /^Verify your email/)
  await page.goto(linkIn(mail))
  await expect(page).toHaveURL(/\/verify-email$/)
  await expect(page.getByTestId('email-verified')).toBeVisible()
}

/** Signs in through the form and waits for the dashboard. */
export async function signIn(page: Page, credentials: { email: string; password: string }): Promise<void> {
  await page.goto('/sign-in')
  await page.getByLabel('Email').fill(credentials.email)
  await page.getByLabel('Password').fill(credentials.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page).toHaveURL(/\/dashboard$/, { timeout: 15_000 })
}

/** Signs out with the header's button and waits for the sign-in page. */
export async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click()
  await expect(page).toHaveURL(/\/sign-in$/, { timeout: 15_000 })
}

/** Signs in as the seeded platform admin and waits for the console. */
export async function signInAsAdmin(page: Page): Promise<void> {
  await page.goto('/sign-in')
  await page.getByLabel('Email').fill(E2E.adminEmail)
  await page.getByLabel('Password').fill(E2E.adminPassword)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page).toHaveURL(/\/admin$/, { timeout: 15_000 })
  await expect(page.getByTestId('admin-email')).toHaveText(E2E.adminEmail)
}
