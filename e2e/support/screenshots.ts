import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Page, PageScreenshotOptions } from '@playwright/test'

/**
 * Where the suite's screenshots go. The README's pictures in `docs/screenshots/` are committed, so an
 * ordinary run must not rewrite them in the working tree: it writes to `e2e/.screenshots/` (ignored by
 * git). `SCREENSHOTS=docs pnpm test:e2e` refreshes the committed ones on purpose.
 */
function screenshotFolder(asked: string | undefined): string {
  if (asked === undefined || asked === '') return '../.screenshots/'
  if (asked === 'docs') return '../../docs/screenshots/'
  throw new Error(`SCREENSHOTS must be "docs" (refresh docs/screenshots/) or unset, not "${asked}"`)
}

export const SCREENSHOT_DIR = fileURLToPath(
  new URL(screenshotFolder(process.env.SCREENSHOTS), import.meta.url),
)

/** The page as `<name>.png` in `SCREENSHOT_DIR`, full page unless `options` say otherwise. */
export async function screenshot(
  page: Page,
  name: string,
  options: Omit<PageScreenshotOptions, 'path'> = {},
): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true })
  await page.screenshot({ fullPage: true, ...options, path: `${SCREENSHOT_DIR}${name}.png` })
}
