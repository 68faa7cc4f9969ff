import { expect, type Locator, type Page, test } from '@playwright/test'
import { signUp } from './support/accounts'

/**
 * Times in the reader's zone: by default the browser's (New York here), once set the profile's
 * (Tokyo), always with the UTC time on hover (`title`) and the instant in `dateTime`.
 */

test.use({ timezoneId: 'America/New_York' })

/** What the server writes for `instant` in `zone` (LocalTime's format, from the same ICU as the server). */
function inZone(instant: Date, zone: string, seconds = false): string {
  return new Intl.DateTimeFormat('en-GB', {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    ...(seconds ? { second: '2-digit' } : {}),
    hourCycle: 'h23',
    timeZoneName: 'short',
    timeZone: zone,
  }).format(instant)
}

async function createdTime(page: Page, listName: string): Promise<Locator> {
  await page.goto('/lists')
  const row = page.getByRole('table', { name: 'Lists' }).getByRole('row').filter({ hasText: listName })
  return row.locator('time')
}

async function expectShownIn(time: Locator, zone: string): Promise<void> {
  const instant = new Date((await time.getAttribute('datetime')) ?? '')
  expect(Number.isNaN(instant.getTime())).toBe(false)
  await expect(time).toHaveText(inZone(instant, zone))
  await expect(time).toHaveAttribute('title', inZone(instant, 'UTC', true))
  await expect(time).toHaveAttribute('title', / UTC$/)
}

test('a list shows times in the browser zone, then in the profile zone, with UTC on hover', async ({
  page,
}) => {
  test.setTimeout(60_000)
  // Times are written on the server in the resolved zone, so the browser never re-renders them.
  const hydrationErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error' && /hydrat/i.test(message.text())) hydrationErrors.push(message.text())
  })
  await signUp(page, { name: 'Zoe Zone' })
  await page.goto('/lists')
  await page.getByLabel('List name').fill('Zoned list')
  await page.getByRole('button', { name: 'Create list' }).click()
  await expect(page.getByRole('heading', { name: 'Zoned list' })).toBeVisible()

  // No profile zone: the browser's, reported by its cookie (the first page re-renders once it is set).
  await expect
    .poll(async () => (await page.context().cookies()).find((c) => c.name === 'fairlane_tz')?.value)
    .toBe(encodeURIComponent('America/New_York'))
  await expectShownIn(await createdTime(page, 'Zoned list'), 'America/New_York')

  // The header's name opens the profile; an unknown zone is refused naming the field, nothing saved.
  await page.getByTestId('account-link').click()
  await expect(page).toHaveURL(/\/account$/)
  await expect(page.getByRole('heading', { name: 'Your account' })).toBeVisible()
  await expect(page.getByText('Your browser is in America/New_York.')).toBeVisible()
  await page.getByLabel('Time zone').evaluate((select) => {
    const option = document.createElement('option')
    option.value = 'Mars/Olympus_Mons'
    option.textContent = 'Mars/Olympus_Mons'
    select.append(option)
    ;(select as HTMLSelectElement).value = 'Mars/Olympus_Mons'
  })
  await page.getByRole('button', { name: 'Save profile' }).click()
  await expect(
    page.getByText('“Mars/Olympus_Mons” is not a time zone name such as Europe/Paris'),
  ).toBeVisible()
  await expect(page.getByLabel('Time zone')).toHaveAttribute('aria-invalid', 'true')

  await page.getByLabel('Time zone').selectOption('Asia/Tokyo')
  await page.getByRole('button', { name: 'Save profile' }).click()
  await expect(page.getByTestId('profile-saved')).toHaveText('Saved. Times are shown in Asia/Tokyo.')

  const tokyo = await createdTime(page, 'Zoned list')
  await expectShownIn(tokyo, 'Asia/Tokyo')
  await expect(tokyo).toContainText('GMT+9')
  await tokyo.hover()

  // Back to the browser's zone.
  await page.goto('/account')
  await expect(page.getByLabel('Time zone')).toHaveValue('Asia/Tokyo')
  await page.getByLabel('Time zone').selectOption('')
  await page.getByRole('button', { name: 'Save profile' }).click()
  await expect(page.getByTestId('profile-saved')).toHaveText(
    'Saved. Times are shown in your browser’s time zone.',
  )
  await expectShownIn(await createdTime(page, 'Zoned list'), 'America/New_York')
  expect(hydrationErrors).toEqual([])
})

test('the header names the user by their profile and links to it', async ({ page }) => {
  await signUp(page)
  await page.getByTestId('account-link').click()
  await page.getByLabel('Name').fill('  ')
  await page.getByRole('button', { name: 'Save profile' }).click()
  await expect(page.getByText('Enter your name')).toBeVisible()
  await page.getByLabel('Name').fill('Renamed Owner')
  await page.getByRole('button', { name: 'Save profile' }).click()
  await expect(page.getByTestId('profile-saved')).toBeVisible()
  await expect(page.getByTestId('account-link')).toContainText('Renamed Owner')
})
