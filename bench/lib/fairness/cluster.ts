import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { ROOT } from '../platform'

/**
 * `pnpm bench:fairness --cluster …`: the same scenario twice, on a single Redis and on the local
 * cluster, each a run of this benchmark of its own (its own platform, from a fresh state), and
 * their last lines side by side.
 */
export async function runSideBySide(argv: string[], log: (line: string) => void) {
  const rest = argv.filter((arg) => arg !== '--cluster')
  log('side by side: the single-node run first')
  const singleNode = await runFairnessChild(rest)
  log('side by side: the cluster run')
  const cluster = await runFairnessChild([...rest, '--on-cluster'])
  const holds = (figures: Record<string, unknown>) =>
    figures.rateViolations === 0 && typeof figures.jainIndex === 'number' && figures.jainIndex >= 0.95
  return {
    mode: 'side-by-side',
    singleNode,
    cluster,
    planHolds: { singleNode: holds(singleNode), cluster: holds(cluster) },
  }
}

async function runFairnessChild(args: string[]): Promise<Record<string, unknown>> {
  const child = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), ['bench/fairness.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  const code = await new Promise<number>((resolve) => child.on('exit', (exit) => resolve(exit ?? 1)))
  const last = stdout.trim().split('\n').at(-1) ?? ''
  if (code !== 0) throw new Error(`bench/fairness.ts ${args.join(' ')} exited with ${code}`)
  return JSON.parse(last) as Record<string, unknown>
}
