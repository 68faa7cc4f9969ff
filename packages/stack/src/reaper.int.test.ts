import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eventually, freePort, REPOSITORY_ROOT } from '@fairlane/testing'
import { afterAll, describe, expect, it } from 'vitest'
import { probePostgres, probeRedis } from './services'

/**
 * The servers a launcher started are stopped by its reaper when the launcher is SIGKILLed. The
 * launcher here is the smallest one that does what `pnpm start` does with them — ensureServices on
 * ports where nothing answers (so it starts project-local PostgreSQL and Redis, in a data folder of
 * this test's own), then the reaper told about them — so that the real `.data/services` is never used.
 */
const LAUNCHER = `
import { ensureServices } from './packages/stack/src/services/index.ts'
import { startReaper } from './packages/stack/src/reaper.ts'
const [databaseUrl, redisUrl, dataDir] = process.argv.slice(1)
const services = await ensureServices({ databaseUrl, redisUrl, dataDir, log: () => {} })
const reaper = startReaper(process.cwd(), [], (line) => console.error(line))
for (const server of services.stopBySignal) reaper.watchServer(server)
console.log('started', services.started.join(' '))
setInterval(() => {}, 60_000)
`

describe('the reaper', () => {
  let dataDir = ''
  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('stops the PostgreSQL and Redis a SIGKILLed launcher started, cleanly', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'fairlane-reaper-'))
    const [pgPort, redisPort] = [await freePort(), await freePort()]
    const databaseUrl = `postgres://postgres@127.0.0.1:${pgPort}/fairlane_reaper`
    const redisUrl = `redis://127.0.0.1:${redisPort}`
    const launcher = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', LAUNCHER, databaseUrl, redisUrl, dataDir],
      { cwd: REPOSITORY_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let output = ''
    for (const stream of [launcher.stdout, launcher.stderr]) {
      stream.on('data', (chunk: Buffer) => {
        output += chunk.toString()
      })
    }
    try {
      await eventually(() => output.includes('started') || launcher.exitCode !== null, {
        timeoutMs: 90_000,
        what: 'the servers to start',
      })
      expect(output).toContain(`started postgres:${pgPort} redis:${redisPort}`)
      expect((await probePostgres(databaseUrl)).state).toBe('up')
      expect((await probeRedis(redisUrl)).state).toBe('up')

      launcher.kill('SIGKILL')
      await eventually(
        async () =>
          (await probePostgres(databaseUrl, 1)).state === 'down' &&
          (await probeRedis(redisUrl, 500)).state === 'down',
        { timeoutMs: 30_000, intervalMs: 200, what: 'PostgreSQL and Redis to stop' },
      )
      // A clean stop (PostgreSQL's fast shutdown) removes the pid file; a crash would leave it.
      await eventually(() => !existsSync(join(dataDir, 'postgres', 'postmaster.pid')), {
        timeoutMs: 10_000,
        what: 'postmaster.pid to go',
      })
    } finally {
      launcher.kill('SIGKILL')
    }
  })
})
