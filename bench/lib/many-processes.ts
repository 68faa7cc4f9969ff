import {
  answers,
  type ManagedProcess,
  signalGroup,
  startProcess,
  waitFor,
  webProcessEnv,
} from '@fairlane/stack'
import { type BenchPlatform, ROOT } from './platform'

/**
 * More of the platform's processes beside a bench platform's own, all on its one PostgreSQL and
 * Redis: web processes (the production entry, as `pnpm start` runs it) on the next web ports, and
 * worker processes (apps/worker/src/main.ts under tsx) with names of their own, so their logs and
 * CPU can be told apart. Each joins `bench.processGroups` (CPU accounting) under its name.
 */
export interface ExtraProcesses {
  /** Web base URLs, the platform's own first. */
  webUrls: string[]
  /** Worker name → its /metrics URL, the platform's own workers included. */
  workerMetrics: Record<string, string>
  /** The running extra processes by name. */
  processes: Map<string, ManagedProcess>
  /** A worker of the same environment (plus `env`) on the metrics port `metricsPort`. */
  startWorker(name: string, metricsPort: number, env?: Record<string, string>): Promise<ManagedProcess>
  /** SIGKILL to the process group of `name` (the platform's own or an extra one); resolves once it is gone. */
  kill(name: string): Promise<void>
  stop(): Promise<void>
}

export async function startExtraProcesses(
  bench: BenchPlatform,
  options: {
    /** Web processes in all (the platform's own counts as the first). */
    webs: number
    output?: NodeJS.WritableStream
    /** The platform's own processes by name, for `kill` (the launcher's `worker`, `worker-tx`). */
    own?: Map<string, ManagedProcess>
  },
): Promise<ExtraProcesses> {
  const output = options.output ?? process.stderr
  const host = bench.config.HOST === '0.0.0.0' ? '127.0.0.1' : bench.config.HOST
  const processes = new Map<string, ManagedProcess>()
  const track = (managed: ManagedProcess) => {
    processes.set(managed.name, managed)
    if (managed.child.pid !== undefined) bench.processGroups[managed.name] = managed.child.pid
  }
  const webUrls = [bench.webUrl]
  const workerMetrics: Record<string, string> = { worker: bench.metricsUrl }
  if (bench.config.WORKER_LAYOUT === 'split')
    workerMetrics['worker-tx'] = `http://${host}:${bench.config.WORKER_METRICS_PORT + 1}/metrics`

  const stop = async () => {
    // Webs first (no new requests), then the workers drain their running sends.
    const ordered = [...processes.values()].sort(
      (a, b) => Number(b.name.startsWith('web')) - Number(a.name.startsWith('web')),
    )
    for (const managed of ordered) {
      const timer = setTimeout(() => void signalGroup(managed, 'SIGKILL'), 20_000)
      await managed.stop()
      clearTimeout(timer)
    }
    processes.clear()
  }

  const startWorker = async (name: string, metricsPort: number, env: Record<string, string> = {}) => {
    const managed = await startWorkerProcess({
      name,
      env: { ...bench.env, ...env },
      metricsPort,
      output,
      started: track,
    })
    workerMetrics[name] = `http://${host}:${metricsPort}/metrics`
    return managed
  }

  try {
    for (let index = 2; index <= options.webs; index++) {
      const name = `web${index}`
      const port = bench.config.WEB_PORT + index - 1
      const managed = startProcess({
        name,
        // As `pnpm start` runs the web: node itself (no wrapper), the production build.
        command: process.execPath,
        args: ['--import', 'tsx', 'apps/web/src/server/main.ts'],
        cwd: ROOT,
        env: { ...bench.env, ...webProcessEnv(bench.env, 'start'), WEB_PORT: String(port) },
        colorIndex: 2,
        output,
      })
      track(managed)
      const url = `http://${host}:${port}`
      await ready(name, managed, `${url}/api/health/ready`, 120_000)
      webUrls.push(url)
    }
  } catch (error) {
    await stop()
    throw error
  }

  return {
    webUrls,
    workerMetrics,
    processes,
    startWorker,
    async kill(name) {
      const managed = processes.get(name) ?? options.own?.get(name)
      if (!managed) throw new Error(`no process named ${name} to kill`)
      await signalGroup(managed, 'SIGKILL')
      processes.delete(name)
    },
    stop,
  }
}

/**
 * A worker (apps/worker/src/main.ts under tsx, as the launcher runs it) named `name` in its log
 * prefix, its metrics on `metricsPort`; resolves once it answers /health. `started` sees it as soon
 * as it is spawned (to be stopped should it never get ready).
 */
export async function startWorkerProcess(input: {
  name: string
  env: NodeJS.ProcessEnv
  metricsPort: number
  output?: NodeJS.WritableStream
  started?: (managed: ManagedProcess) => void
}): Promise<ManagedProcess> {
  const managed = startProcess({
    name: input.name,
    command: `${ROOT}/node_modules/.bin/tsx`,
    args: ['apps/worker/src/main.ts'],
    cwd: ROOT,
    env: { ...input.env, WORKER_METRICS_PORT: String(input.metricsPort) },
    colorIndex: 1,
    output: input.output ?? process.stderr,
  })
  input.started?.(managed)
  const host = input.env.HOST === '0.0.0.0' || !input.env.HOST ? '127.0.0.1' : input.env.HOST
  try {
    await ready(input.name, managed, `http://${host}:${input.metricsPort}/health`, 60_000)
  } catch (error) {
    await signalGroup(managed, 'SIGKILL')
    throw error
  }
  return managed
}

async function ready(name: string, managed: ManagedProcess, healthUrl: string, timeoutMs: number) {
  const exited = managed.exited.then((code) => ({ code }))
  const outcome = await Promise.race([
    waitFor(name, () => answers(healthUrl), { timeoutMs }).then(() => null),
    exited,
  ])
  if (outcome) throw new Error(`${name} exited with code ${outcome.code} before it was ready`)
}

/** A worker's lane job counters from its /metrics: jobs completed and failed attempts, all lanes. */
export async function readWorkerCounters(metricsUrl: string): Promise<{ completed: number; failed: number }> {
  const response = await fetch(metricsUrl, { signal: AbortSignal.timeout(5_000) })
  if (!response.ok) throw new Error(`${metricsUrl}: ${response.status}`)
  const text = await response.text()
  return {
    completed: sumMetric(text, 'fairlane_jobs_completed_total'),
    failed: sumMetric(text, 'fairlane_jobs_failed_total'),
  }
}

/** The sum of every series of counter `name` in a Prometheus text exposition. */
export function sumMetric(text: string, name: string): number {
  let sum = 0
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue
    const rest = line.slice(name.length)
    if (rest[0] !== '{' && rest[0] !== ' ') continue
    const value = Number(line.slice(line.lastIndexOf(' ') + 1))
    if (Number.isFinite(value)) sum += value
  }
  return sum
}
