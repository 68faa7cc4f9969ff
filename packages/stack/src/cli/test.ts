import { mkdirSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runToEnd } from '../processes'
import { ensureServices } from '../services'
import { webBuildIsStale } from '../web-build'
import { vitestFailures } from './vitest-failures'

/**
 * `pnpm test`: lint, typecheck, the web build, unit, integration and end-to-end suites, in that order, against
 * PostgreSQL and Redis made reachable the same way `pnpm start` does. Every step runs even when an
 * earlier one failed (the e2e suite needs a successful web build), and a summary ends the output.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..')
const log = (line: string) => console.log(`fairlane test: ${line}`)

async function main(): Promise<number> {
  const services = await ensureServices({
    databaseUrl: process.env.DATABASE_URL || undefined,
    redisUrl: process.env.REDIS_URL || undefined,
    dataDir: join(root, '.data', 'services'),
    log,
  })
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: services.databaseUrl,
    REDIS_URL: services.redisUrl,
    NEXT_TELEMETRY_DISABLED: '1',
  }
  const bin = (name: string) => join(root, 'node_modules', '.bin', name)
  const results: { step: string; code: number; seconds: number }[] = []
  const step = async (name: string, command: string, args: string[], cwd = root, extraEnv = {}) => {
    log(`==> ${name}`)
    const started = Date.now()
    const code = await runToEnd(command, args, { cwd, env: { ...env, ...extraEnv } })
    results.push({ step: name, code, seconds: (Date.now() - started) / 1000 })
    return code
  }

  await step('lint', bin('biome'), ['check', '.'])
  await step('typecheck', 'pnpm', ['run', '--silent', 'typecheck'])
  // Before the integration suites: the web entry's test (apps/web/src/server/entry.int.test.ts) runs
  // the real build, and finds it fresh here instead of building it a second time. The typecheck step
  // just checked the app (it fails the run if it found anything): the build skips its own check.
  const buildCode = webBuildIsStale(root)
    ? await step('web build', 'pnpm', ['--filter', '@fairlane/web', 'build'], root, {
        FAIRLANE_BUILD_TYPECHECKED: '1',
      })
    : 0
  // The JSON report lets the summary name each failed test: CI keeps only the tail of the output, and
  // vitest's own list of failures sits above the e2e suite's whole run.
  const vitestReport = join(root, '.data', 'test-results', 'vitest.json')
  mkdirSync(dirname(vitestReport), { recursive: true })
  rmSync(vitestReport, { force: true })
  const vitestCode = await step('unit + integration', bin('vitest'), [
    'run',
    '--config',
    'packages/testing/vitest.config.ts',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${vitestReport}`,
  ])
  if (buildCode === 0) await step('e2e', bin('playwright'), ['test', '--config', 'e2e/playwright.config.ts'])
  else results.push({ step: 'e2e', code: 1, seconds: 0 })

  await services.stop()
  console.log('\nfairlane test summary')
  for (const result of results) {
    console.log(
      `  ${result.code === 0 ? 'pass' : 'FAIL'}  ${result.step.padEnd(20)} ${result.seconds.toFixed(1)} s`,
    )
  }
  if (vitestCode !== 0) for (const line of vitestFailures(vitestReport, root)) console.log(line)
  return results.every((result) => result.code === 0) ? 0 : 1
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`fairlane test: ${error.message}`)
    process.exit(1)
  },
)
