import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { connect } from 'node:net'

/** Host names that mean "this machine": only for these may we start a server ourselves. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host)
}

/** `host:port` of a service URL for messages: never the user name or password. */
export function hostPort(url: URL, defaultPort: number): string {
  return `${url.hostname}:${url.port || defaultPort}`
}

export function portOf(url: URL, defaultPort: number): number {
  return url.port ? Number(url.port) : defaultPort
}

export const isRoot = (): boolean => process.getuid?.() === 0

/** Administration programs live in sbin, which a non-login root shell may lack on PATH. */
export function sbin(name: string): string {
  for (const dir of ['/usr/sbin', '/sbin']) if (existsSync(`${dir}/${name}`)) return `${dir}/${name}`
  return name
}

/** PostgreSQL refuses to run as root, so as root its commands go through `runuser -u postgres`. */
export function asPostgresUser(command: string, args: string[]): [string, string[]] {
  return isRoot() ? [sbin('runuser'), ['-u', 'postgres', '--', command, ...args]] : [command, args]
}

export interface RunOptions {
  cwd?: string
  env?: NodeJS.ProcessEnv
  timeoutMs?: number
}

/** Runs a command to completion; the error carries the end of its output, which is where the cause is. */
export function run(command: string, args: string[], options: RunOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: options.env ?? process.env,
        timeout: options.timeoutMs ?? 0,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout)
        const output = `${stdout}\n${stderr}`.trim().split('\n').slice(-15).join('\n')
        reject(
          new Error(`\`${[command, ...args].join(' ')}\` failed: ${error.message.split('\n')[0]}\n${output}`),
        )
      },
    )
  })
}

export interface WaitOptions {
  what: string
  timeoutMs: number
  intervalMs?: number
}

/**
 * Polls `check` until it returns true or the deadline passes: servers take anywhere from 50 ms to
 * many seconds to come up, so a fixed sleep would be either too short or wasted time.
 * `check` may throw to give up early (for example when the server process already exited).
 */
export async function waitFor(check: () => Promise<boolean>, options: WaitOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs
  for (;;) {
    if (await check()) return
    if (Date.now() >= deadline)
      throw new Error(`timed out after ${options.timeoutMs / 1000} s waiting for ${options.what}`)
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 150))
  }
}

/** Rejects after `ms`; for client calls whose own timeouts do not cover every phase. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** The last lines of a log file (or '' when it does not exist), to put a server's own words in an error. */
export async function tail(path: string, lines = 20, fromByte = 0): Promise<string> {
  try {
    const file = await open(path, 'r')
    try {
      const { size } = await file.stat()
      const start = Math.max(fromByte, size - 64 * 1024)
      const buffer = Buffer.alloc(Math.max(0, size - start))
      await file.read(buffer, 0, buffer.length, start)
      return buffer.toString('utf8').trimEnd().split('\n').slice(-lines).join('\n')
    } finally {
      await file.close()
    }
  } catch {
    return ''
  }
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code
    return typeof code === 'string' && !error.message.includes(code)
      ? `${code}: ${error.message}`
      : error.message
  }
  return String(error)
}

/**
 * Whether anything accepts TCP connections on host:port. Checked before starting a server there, so
 * "the port is taken by something else" is said plainly instead of as the new server's bind error.
 */
export function portInUse(hostname: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ''), port, timeout: timeoutMs })
    const done = (inUse: boolean) => {
      socket.destroy()
      resolve(inUse)
    }
    socket.once('connect', () => done(true))
    socket.once('timeout', () => done(true)) // something holds the port but does not finish the handshake
    socket.once('error', () => done(false))
  })
}
