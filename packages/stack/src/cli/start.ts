import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { launchPlatform, type Mode, preparePlatform, stopAll } from '../platform'
import { runToEnd } from '../processes'
import { DEMO_ADMIN_EMAIL } from '../seed'
import { webBuildIsStale } from '../web-build'

/**
 * `pnpm start` (and `pnpm dev` with watchers): the whole platform on this machine, from a fresh
 * clone, in one command. Ctrl-C stops it in order, including any PostgreSQL/Redis it started.
 */
export async function run(mode: Mode): Promise<void> {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..')
  const log = (line: string) => console.log(`fairlane: ${line}`)
  const started = Date.now()
  const prepared = await preparePlatform(root, process.env, log)

  if (mode === 'start' && webBuildIsStale(root)) {
    log('building the web app (next build)')
    const code = await runToEnd('pnpm', ['--filter', '@fairlane/web', 'build'], {
      cwd: root,
      env: prepared.env,
    })
    if (code !== 0) {
      await prepared.stopServices()
      throw new Error(`next build failed with exit code ${code}`)
    }
  }

  const platform = await launchPlatform(root, prepared, mode)
  let stopping = false
  const stop = async (code: number) => {
    if (stopping) return
    stopping = true
    log('stopping web, worker and mail sink')
    await stopAll(platform.processes)
    await prepared.stopServices()
    process.exit(code)
  }
  process.on('SIGINT', () => void stop(0))
  process.on('SIGTERM', () => void stop(0))
  void platform.firstExit.then(({ name, code }) => {
    if (stopping) return
    log(`${name} exited with code ${code}; stopping the rest`)
    void stop(1)
  })

  const { urls } = platform
  const { secrets } = prepared
  console.log(
    [
      '',
      `Fairlane is ready (${((Date.now() - started) / 1000).toFixed(1)} s)`,
      `  web            ${urls.web}`,
      `  mail inbox     ${urls.inbox}    (SMTP ${urls.smtp})`,
      `  worker metrics ${urls.metrics}`,
      `  demo API key   ${secrets.DEMO_API_KEY}`,
      `  admin token    ${secrets.ADMIN_TOKEN}    (Authorization: Bearer … on /api/admin)`,
      `  admin console  ${urls.web}/admin    sign in as ${DEMO_ADMIN_EMAIL} / ${secrets.DEMO_ADMIN_PASSWORD}`,
      '',
      'Ctrl-C stops everything.',
      '',
    ].join('\n'),
  )
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run('start').catch((error: Error) => {
    console.error(`fairlane: ${error.message}`)
    process.exit(1)
  })
}
