import { eventually, freePort, type RunningProcess, spawnEntry } from '@fairlane/testing'

/** The worker process's entry, as `pnpm start` and the containers run it. */
export const WORKER_ENTRY = 'apps/worker/src/main.ts'

/**
 * Starts the worker as a process (its `main.ts`) with `env` on a free metrics port, noted in
 * `running` at once (so the test's cleanup kills it even if it never turns healthy), and waits for
 * its `/health`.
 */
export async function startWorkerProcess(
  env: Record<string, string>,
  options: { running: RunningProcess[]; healthTimeoutMs?: number },
): Promise<RunningProcess> {
  const port = await freePort()
  const worker = spawnEntry(WORKER_ENTRY, { ...env, WORKER_METRICS_PORT: String(port) })
  options.running.push(worker)
  await eventually(async () => (await fetch(`http://127.0.0.1:${port}/health`)).ok, {
    what: 'worker /health',
    timeoutMs: options.healthTimeoutMs ?? 20_000,
  })
  return worker
}
