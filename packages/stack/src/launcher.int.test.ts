import { type ChildProcess, spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { createTestDatabase, eventually, freePort, REPOSITORY_ROOT, testRedisPrefix } from '@fairlane/testing'
import { describe, inject, it } from 'vitest'

/**
 * The real launcher (`pnpm start`'s bin/run.mjs), killed every way a terminal, `timeout`, a CI runner
 * or a supervisor kills it, leaves no process behind and every port free within the children's
 * grace period. `--only sink,worker` keeps `next build` out of it: the web process is stopped by the
 * same launcher code and runs the same stdin watch (stopWhenStdinCloses) as these two. The five run
 * at once, each on ports, a database and a queue prefix of its own: most of each is waiting for boot.
 */
/** The children's forced exit (SHUTDOWN_FORCE_EXIT_MS): everything must be gone within it. */
const GRACE_MS = 5_000
type Kill = (launcher: ChildProcess) => void

const KILLS: Array<[string, Kill]> = [
  [
    'SIGTERM to its process group, then nobody reads its output (timeout, a CI runner)',
    (launcher) => {
      process.kill(-(launcher.pid ?? 0), 'SIGTERM')
      launcher.stdout?.destroy()
      launcher.stderr?.destroy()
    },
  ],
  ['SIGINT (Ctrl-C)', (launcher) => launcher.kill('SIGINT')],
  ['SIGHUP (its terminal closed)', (launcher) => launcher.kill('SIGHUP')],
  ['its stdout closed (a reader that left), then a line to write', (launcher) => launcher.stdout?.destroy()],
  ['SIGKILL', (launcher) => launcher.kill('SIGKILL')],
]

describe.concurrent('the launcher leaves nothing behind', () => {
  // Five stacks booting at once on two cores beside another test file: their boot alone has taken
  // up to 60 s in CI, the default limit: the ready wait has 90 s, the test 120 s.
  it.for(KILLS)('killed by %s', { timeout: 120_000 }, async ([, kill], { expect, onTestFinished }) => {
    const database = await createTestDatabase(inject('databaseServerUrl'), inject('templateDatabase'))
    onTestFinished(() => database.drop())
    const [smtpPort, httpPort, metricsPort] = [await freePort(), await freePort(), await freePort()]
    const launcher = spawn(
      process.execPath,
      ['packages/stack/bin/run.mjs', 'start', '--only', 'sink,worker'],
      {
        cwd: REPOSITORY_ROOT,
        // Its own process group, as under `timeout` or a CI runner: a signal to the group reaches it alone.
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          DATABASE_URL: database.url,
          REDIS_URL: inject('redisUrl'),
          QUEUE_PREFIX: testRedisPrefix('launcher'),
          MAILSINK_SMTP_PORT: String(smtpPort),
          MAILSINK_HTTP_PORT: String(httpPort),
          WORKER_METRICS_PORT: String(metricsPort),
          SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
          SHUTDOWN_FORCE_EXIT_MS: String(GRACE_MS),
          SESSION_SECRET: 'launcher-test-session-secret-0123456789abcdef',
          ADMIN_TOKEN: 'launcher-test-admin-token-0123456789',
          DEMO_API_KEY: 'fl_launcherTestKey0123456789abcdefghij',
          DEMO_ADMIN_PASSWORD: 'launcher-test-admin-password',
        },
      },
    )
    const started = [launcher.pid ?? 0]
    // A failed assertion must not leave this launcher's processes running: kill each and its group
    // (each child leads one).
    onTestFinished(() => {
      for (const pid of started.filter((pid) => pid > 0)) {
        signal(-pid, 'SIGKILL')
        signal(pid, 'SIGKILL')
      }
    })
    let output = ''
    launcher.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    launcher.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    await eventually(() => output.includes('Fairlane is ready') || launcher.exitCode !== null, {
      timeoutMs: 90_000,
      intervalMs: 100,
      what: 'the launcher to say it is ready',
    })
    expect(launcher.exitCode, output).toBeNull()
    const pids = descendantsOf(launcher.pid ?? 0)
    started.push(...pids)
    // At least tsx and node for each of sink and worker.
    expect(pids.length, output).toBeGreaterThanOrEqual(4)
    const ports = [smtpPort, httpPort, metricsPort]
    expect(await Promise.all(ports.map(portIsFree))).toEqual([false, false, false])

    const killedAt = Date.now()
    kill(launcher)
    // With nobody reading, the launcher learns of it at its next write: a line from the sink.
    await fetch(`http://127.0.0.1:${httpPort}/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ match: 'someone@example.com', reply: '451 4.7.1 try later' }),
      // Bounded: a sink stopping (or stuck) may never answer, and the check below names what is left.
      signal: AbortSignal.timeout(GRACE_MS),
    }).catch(() => {})

    await eventually(
      async () => {
        const alive = [launcher.pid ?? 0, ...pids].filter(isAlive)
        const free = await Promise.all(ports.map(portIsFree))
        return alive.length === 0 && free.every(Boolean)
      },
      { timeoutMs: GRACE_MS, intervalMs: 50, what: `every process gone and ports ${ports.join(', ')} free` },
    )
    console.log(`launcher test: gone ${Date.now() - killedAt} ms after the kill`)
  })
})

/** Every process below `pid`, by walking /proc's parent links (before any of them is reparented). */
function descendantsOf(pid: number): number[] {
  const parents = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const stat = procStat(Number(entry))
    if (stat) parents.set(Number(entry), stat.parent)
  }
  const found: number[] = []
  const queue = [pid]
  while (queue.length > 0) {
    const current = queue.shift()
    for (const [child, parent] of parents) {
      if (parent === current && !found.includes(child)) {
        found.push(child)
        queue.push(child)
      }
    }
  }
  return found
}

/** Alive and not a zombie (an orphan's exit status may wait for a PID 1 that never collects it). */
function isAlive(pid: number): boolean {
  const stat = procStat(pid)
  return stat !== undefined && stat.state !== 'Z'
}

function procStat(pid: number): { state: string; parent: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
    return { state: fields[0] ?? '', parent: Number(fields[1]) }
  } catch {
    return undefined
  }
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch {
    // Already gone.
  }
}
