import { randomUUID } from 'node:crypto'
import { expect, type Page } from '@playwright/test'

export interface Credentials {
  email: string
  password: string
  company: string
  name: string
}

/**
 * Signs up a fresh tenant through the real form (unique email per call) and waits for the dashboard,
 * so a suite can start signed in as a tenant nobody else touches. Returns what it typed.
 */
export async function signUp(
  page: Page,
  options: { email?: string; password?: string; company?: string; name?: string } = {},
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
  return credentials
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
