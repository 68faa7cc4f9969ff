import { join } from 'node:path'
import { parseConfig } from '@fairlane/config'
import { answers, type ManagedProcess, startProcess, waitFor } from './processes'

/** The platform's processes that run from source under tsx, by entry point. */
const ENTRIES = {
  sink: 'apps/mailsink/src/main.ts',
  worker: 'apps/worker/src/main.ts',
  inbound: 'apps/inbound/src/main.ts',
  submission: 'apps/submission/src/main.ts',
} as const

export type SourceProcessName = keyof typeof ENTRIES

/**
 * Starts the mail sink, a worker or the inbound server the way `launchPlatform` does (tsx, its own process group, logs
 * prefixed with its name) and resolves once it answers its health check. For benchmarks and tests
 * that run part of the platform (no web), or replace a worker they killed with one of the same
 * environment. Rejects, with the process stopped, if it exits or stays unhealthy for `timeoutMs`.
 */
export async function startSourceProcess(
  root: string,
  name: SourceProcessName,
  env: NodeJS.ProcessEnv,
  options: {
    output?: NodeJS.WritableStream
    colorIndex?: number
    timeoutMs?: number
    /** The name its output is prefixed with, when not `name` (the split layout's `worker-tx`). */
    label?: string
  } = {},
): Promise<ManagedProcess> {
  const config = parseConfig(env)
  const host = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST
  const port = {
    sink: config.MAILSINK_HTTP_PORT,
    worker: config.WORKER_METRICS_PORT,
    inbound: config.INBOUND_HTTP_PORT,
    submission: config.SUBMISSION_HTTP_PORT,
  }[name]
  const managed = startProcess({
    name: options.label ?? name,
    command: join(root, 'node_modules', '.bin', 'tsx'),
    args: [ENTRIES[name]],
    cwd: root,
    env,
    colorIndex: options.colorIndex ?? { sink: 0, worker: 1, inbound: 4, submission: 5 }[name],
    output: options.output,
  })
  const exited = managed.exited.then((code) => ({ code }))
  const ready = waitFor(name, () => answers(`http://${host}:${port}/health`), {
    timeoutMs: options.timeoutMs ?? 60_000,
  }).then(() => null)
  try {
    const outcome = await Promise.race([ready, exited])
    if (outcome) throw new Error(`${name} exited with code ${outcome.code} before it was ready`)
  } catch (error) {
    await signalGroup(managed, 'SIGKILL')
    throw error
  }
  return managed
}

/**
 * Sends `signal` to the process's whole group and waits for it to exit. A plain `kill` reaches only
 * the tsx wrapper, which cannot pass a SIGKILL on: the node process running the app would live on.
 */
export async function signalGroup(managed: ManagedProcess, signal: NodeJS.Signals): Promise<number> {
  const pid = managed.child.pid
  if (pid !== undefined && managed.child.exitCode === null && managed.child.signalCode === null) {
    try {
      process.kill(-pid, signal)
    } catch {
      // The group is already gone.
    }
  }
  return managed.exited
}
