import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runToEnd, webBuildIsStale } from '@fairlane/stack'
import { REPOSITORY_ROOT } from './processes'

const LOCK = join(REPOSITORY_ROOT, 'apps', 'web', '.next-build.lock')

/**
 * For tests that run the real web entry: makes sure `next build`'s output exists and is newer than
 * the sources (`webBuildIsStale`), building it only when it is not. `pnpm test` builds before the
 * integration suites, so there this costs one stat walk. Test files run in parallel, so the build is
 * taken under a lock file (`apps/web/.next-build.lock`, holding the builder's pid): whoever waits for
 * it checks again afterwards instead of building a second time.
 */
export async function ensureWebBuild(options: { timeoutMs?: number } = {}): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 15 * 60_000)
  while (webBuildIsStale(REPOSITORY_ROOT)) {
    if (takeLock()) {
      try {
        // Another holder may have finished between our check and our lock.
        if (!webBuildIsStale(REPOSITORY_ROOT)) return
        const code = await runToEnd('pnpm', ['--filter', '@fairlane/web', 'build'], {
          cwd: REPOSITORY_ROOT,
          // Vitest sets NODE_ENV=test; a build is always a production build.
          env: { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' },
          output: 'stderr',
        })
        if (code !== 0) throw new Error(`next build failed with exit code ${code}`)
        return
      } finally {
        rmSync(LOCK, { force: true })
      }
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for the web build (lock ${LOCK})`)
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
}

/** Creates the lock file, or removes one whose builder is gone and tries again; false: someone builds. */
function takeLock(): boolean {
  for (let tries = 0; tries < 2; tries++) {
    try {
      const fd = openSync(LOCK, 'wx')
      writeFileSync(fd, String(process.pid))
      closeSync(fd)
      return true
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      if (holderAlive()) return false
      rmSync(LOCK, { force: true })
    }
  }
  return false
}

function holderAlive(): boolean {
  let pid: number
  try {
    pid = Number(readFileSync(LOCK, 'utf8'))
  } catch {
    return true // just created, pid not written yet (or just removed): look again shortly
  }
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
