import { spawn } from 'node:child_process'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import type { StopBySignal } from './services'

export type ReaperMessage =
  | { group: number; graceMs: number }
  | { ungroup: number }
  | { server: StopBySignal }
  | { release: true }

export interface Reaper {
  /** A child in a process group of its own (led by `pid`) that stops itself within `graceMs`. */
  watchGroup(pid: number, graceMs: number): void
  forgetGroup(pid: number): void
  /** A PostgreSQL/Redis server this launcher started. */
  watchServer(server: StopBySignal): void
  /** Everything was stopped in order: the reaper leaves without touching anything. */
  release(): void
}

/**
 * Starts the reaper (reaper-main.ts): the cleanup that still runs when the launcher is killed with
 * SIGKILL. It runs detached (a signal to our process group is the launcher's to handle) with no
 * output of its own (it would keep a caller's pipe open after we are gone), and is told what to
 * clean up through a pipe whose end, when it comes without `release`, is the sign that we died.
 *
 * `outputs` are the read ends of the children's stdout/stderr pipes, which we read. The reaper holds
 * them too and drains them once we are gone: the children go on writing their shutdown logs into
 * pipes that still have a reader, because a write into a pipe without one fails with EPIPE, and
 * pino's exit flush retries that failure for ever instead of letting the process exit.
 */
export function startReaper(root: string, outputs: Readable[], log: (line: string) => void): Reaper {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join('packages', 'stack', 'src', 'reaper-main.ts'), String(outputs.length)],
    { cwd: root, detached: true, stdio: ['pipe', 'ignore', 'ignore', ...outputs] },
  )
  child.unref()
  // Handing a stream to a child as its stdio makes Node stop reading it here: we still show the lines.
  for (const output of outputs) output.resume()
  const input = child.stdin
  // The pipe alone must not keep the launcher alive.
  ;(input as unknown as { unref?: () => void }).unref?.()
  let failed = false
  const fail = (error: Error) => {
    if (failed) return
    failed = true
    log(`reaper unavailable (${error.message}): a SIGKILL of this launcher could leave processes running`)
  }
  // A reaper that failed to start or was killed is a missing safety net, not a reason to stop.
  input?.on('error', fail)
  child.on('error', fail)
  const send = (message: ReaperMessage) => {
    if (input?.writable) input.write(`${JSON.stringify(message)}\n`)
  }
  return {
    watchGroup: (pid, graceMs) => send({ group: pid, graceMs }),
    forgetGroup: (pid) => send({ ungroup: pid }),
    watchServer: (server) => send({ server }),
    release: () => {
      send({ release: true })
      input?.end()
    },
  }
}
