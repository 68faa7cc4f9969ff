import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

/**
 * `next build` takes a minute on two cores, so `pnpm start` rebuilds only when a source the web app
 * compiles is newer than the last build.
 */
export function webBuildIsStale(root: string): boolean {
  const buildId = join(root, 'apps', 'web', '.next', 'BUILD_ID')
  if (!existsSync(buildId)) return true
  const builtAt = statSync(buildId).mtimeMs
  const sources = [
    join(root, 'apps', 'web', 'src'),
    join(root, 'apps', 'web', 'next.config.ts'),
    join(root, 'pnpm-lock.yaml'),
  ]
  for (const name of readdirSync(join(root, 'packages'))) sources.push(join(root, 'packages', name, 'src'))
  return sources.some((source) => newestMtime(source) > builtAt)
}

/** Tests are not compiled into the app: editing one does not make the build stale. */
const TEST_FILE = /\.test\.tsx?$/

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = stat.mtimeMs
  for (const entry of readdirSync(path)) {
    if (TEST_FILE.test(entry)) continue
    newest = Math.max(newest, newestMtime(join(path, entry)))
  }
  return newest
}
