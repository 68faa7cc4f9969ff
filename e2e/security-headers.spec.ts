import { expect, test } from '@playwright/test'
import { signUp } from './support/accounts'

/**
 * The Content-Security-Policy and its neighbours as a browser meets them: pages still hydrate (the
 * live preview only works once React runs), nothing the app itself does is refused by the policy,
 * the campaign preview runs no script, and no other site can frame the app.
 */
test('pages hydrate under the CSP, the preview runs no script, and the app cannot be framed', async ({
  page,
}) => {
  test.setTimeout(90_000)
  const refused: string[] = []
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) refused.push(message.text())
  })

  const signInPage = await page.goto('/sign-in')
  const headers = signInPage?.headers() ?? {}
  expect(headers['content-security-policy']).toContain("default-src 'self'")
  expect(headers['content-security-policy']).toContain("frame-ancestors 'none'")
  expect(headers['x-frame-options']).toBe('DENY')
  expect(headers['x-content-type-options']).toBe('nosniff')
  expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin')

  await signUp(page)
  await page.goto('/campaigns/new')
  await page.getByLabel('Subject').fill('Preview under CSP')
  await page
    .getByLabel('HTML body')
    .fill(
      '<p>Static text</p><script>document.body.setAttribute("data-ran", "yes")</script>' +
        '<img src="x" onerror="document.body.setAttribute(\'data-ran\', \'img\')">',
    )
  // The preview is rendered by a server action as the user types: proof that React hydrated.
  await expect(page.getByTestId('preview-subject')).toHaveText('Preview under CSP')
  const frame = page.frameLocator('[data-testid="preview-frame"]')
  await expect(frame.getByText('Static text')).toBeVisible()
  await expect(page.getByTestId('preview-frame')).toHaveAttribute('sandbox', 'allow-same-origin')
  expect(await frame.locator('body').getAttribute('data-ran')).toBeNull()

  // Another origin framing the app gets nothing: frame-ancestors 'none'.
  const framed = await page.context().newPage()
  const appUrl = new URL('/sign-in', page.url()).toString()
  await framed.setContent(`<iframe id="app" src="${appUrl}"></iframe>`, { waitUntil: 'load' })
  const child = framed.frames().find((frame) => frame !== framed.mainFrame())
  expect(child).toBeDefined()
  expect(await child?.getByRole('heading', { name: 'Sign in' }).count()).toBe(0)
  expect(child?.url()).not.toBe(appUrl)
  await framed.close()

  expect(refused).toEqual([])
})
