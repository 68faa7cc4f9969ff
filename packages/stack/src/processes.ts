import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'

const COLORS = ['\x1b[36m', '\x1b[35m', '\x1b[33m', '\x1b[32m', '\x1b[34m']
const RESET = '\x1b[0m'

export interface ManagedProcess {
  name: string
  child: ChildProcess
  exited: Promise<number>
  stop(signal?: NodeJS.Signals): Promise<number>
}

/**
 * Starts a long-running child with every output line prefixed by its name, so web, worker and sink
 * logs stay readable in one terminal. The child gets its own process group (`detached`) so a Ctrl-C
 * in the terminal reaches only us, and we stop the children in order.
 *
 * Its stdin is a pipe we hold open and never write to, with `STOP_WHEN_STDIN_CLOSES=true`: should we
 * die without stopping it (SIGKILL, a crash), the kernel closes the pipe and the child shuts itself
 * down gracefully instead of living on in its own group, holding its port.
 */
export function startProcess(options: {
  name: string
  command: string
  args: string[]
  cwd: string
  env: NodeJS.ProcessEnv
  colorIndex?: number
  output?: NodeJS.WritableStream
}): ManagedProcess {
  const output = options.output ?? process.stdout
  const color = process.stdout.isTTY ? (COLORS[(options.colorIndex ?? 0) % COLORS.length] ?? '') : ''
  const prefix = `${color}${options.name.padEnd(7)}|${color ? RESET : ''} `
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: { ...options.env, STOP_WHEN_STDIN_CLOSES: 'true' },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  })
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue
    createInterface({ input: stream }).on('line', (line) => output.write(`${prefix}${line}\n`))
  }
  const exited = new Promise<number>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)))
    child.on('error', (error) => {
      output.write(`${prefix}failed to start: ${error.message}\n`)
      resolve(1)
    })
  })
  return {
    name: options.name,
    child,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
}

/** Runs a command to completion with inherited output; resolves with its exit code. */
export function runToEnd(
  command: string,
  args: string[],
  options: {
    cwd: string
    env?: NodeJS.ProcessEnv
    /** `stderr`: the child's output all goes to stderr, keeping stdout for a caller's own result. */
    output?: 'inherit' | 'stderr'
  },
) {
  return new Promise<number>((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: options.output === 'stderr' ? ['ignore', process.stderr, process.stderr] : 'inherit',
    })
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)))
    child.on('error', () => resolve(127))
  })
}

/** Polls `check` until it resolves true or the deadline passes. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  options: { timeoutMs: number; intervalMs?: number },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 200))
  }
  throw new Error(`${what} did not become ready within ${Math.round(options.timeoutMs / 1000)} s`)
}

export async function answers(url: string): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2_000) })
  return response.ok
}
