import { createRequire } from 'node:module'
import { expect, test } from '@playwright/test'
import { E2E } from './playwright.config'
import { signInAsAdmin, signUp } from './support/accounts'

// The e2e package has no dependencies of its own: the db package's client plays the guardrail's pass.
const require = createRequire(import.meta.url)
const postgres = require('../packages/db/node_modules/postgres')
const databaseUrl = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/fairlane')
databaseUrl.pathname = '/fairlane_e2e'

const REASON = '7 % hard bounces over 24 h (1,000 sent; pause at 6 %)'

/** Moves the tenant the way the `reputation-check` job does (its own pass is covered by integration tests). */
async function setStage(company: string, stage: 'warn' | 'pause', reason: string): Promise<string> {
  const sql = postgres(databaseUrl.toString(), { max: 1 })
  try {
    const [row] = await sql`
      update tenants set reputation_stage = ${stage}, reputation_reason = ${reason}, reputation_changed_at = now()
      where name = ${company} returning id`
    return row.id as string
  } finally {
    await sql.end()
  }
}

/**
 * The reputation guardrail as its two readers see it: the tenant's dashboard says it is warned, then
 * paused, with the rate behind it and what still goes out; the platform admin finds it on the
 * Tenants page, is refused a resume without a reason, resumes it with one, and the banner is gone.
 */
test('a paused tenant is told why on its dashboard; the admin resumes it with a reason from the Tenants page', async ({
  page,
  browser,
}) => {
  test.setTimeout(60_000)
  const owner = await signUp(page, { verify: false })
  await expect(page.getByTestId('reputation-banner')).toHaveCount(0)

  await setStage(owner.company, 'warn', '2.4 % hard bounces over 24 h (1,000 sent; warn at 2 %)')
  await page.reload()
  const banner = page.getByTestId('reputation-banner')
  await expect(banner).toHaveAttribute('data-stage', 'warn')
  await expect(banner).toContainText('Your bounce or complaint rate is high: 2.4 % hard bounces over 24 h')

  const id = await setStage(owner.company, 'pause', REASON)
  await page.reload()
  await expect(banner).toHaveAttribute('data-stage', 'pause')
  await expect(banner).toContainText(`Your campaigns are paused: ${REASON}`)
  await expect(banner).toContainText('your login codes and other API mail still go out')

  const admin = await browser.newPage()
  await signInAsAdmin(admin)
  await admin.goto('/admin/tenants')
  const row = admin.getByTestId('guardrail').locator(`tr[data-tenant="${id}"]`)
  await expect(row.getByTestId('guardrail-stage')).toHaveText('Paused')
  await expect(row).toContainText(REASON)
  const reason = row.getByLabel(`Reason to resume ${owner.company}`)
  await reason.fill('   ')
  await row.getByRole('button', { name: 'Resume' }).click()
  await expect(reason).toHaveAttribute('aria-invalid', 'true')
  await expect(reason).toHaveAccessibleDescription(/must say why/)
  await reason.fill('Spoke with the owner: one bad import, removed')
  await row.getByRole('button', { name: 'Resume' }).click()
  await expect(admin.getByTestId('guardrail-notice')).toContainText(`${owner.company} is resumed`)
  await expect(admin.getByTestId('guardrail').locator(`tr[data-tenant="${id}"]`)).toHaveCount(0)
  const audit = await admin.request.get(`/api/admin/audit?targetType=tenant&targetId=${id}`, {
    headers: { authorization: `Bearer ${E2E.adminToken}` },
  })
  const entries = (await audit.json()) as { action: string; reason: string | null }[]
  expect(entries).toContainEqual(
    expect.objectContaining({
      action: 'tenant.reputation.resume',
      reason: 'Spoke with the owner: one bad import, removed',
    }),
  )
  await admin.close()

  await page.reload()
  await expect(page.getByTestId('reputation-banner')).toHaveCount(0)
})
