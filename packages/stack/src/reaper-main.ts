import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { Socket } from 'node:net'
import { createInterface } from 'node:readline'
import type { ReaperMessage } from './reaper'
import type { StopBySignal } from './services'

/**
 * The reaper: a small process of its own that `pnpm start` tells, line by line on its stdin, what it
 * started (process groups, PostgreSQL/Redis servers). When the launcher ends in order it says
 * `release` first and the reaper leaves. When stdin ends without that, the launcher died without
 * cleaning up — SIGKILL, a crash — and the reaper does it instead: it gives the process groups their
 * grace period (they shut themselves down when their own stdin closes, see stopWhenStdinCloses),
 * SIGKILLs what is left of them (a stuck drain, a `tsx watch` wrapper whose child already left), and
 * then stops the servers, which are only safe to stop once their clients are gone.
 *
 * From fd 3 on it holds the read ends of the children's output pipes (argv[2] says how many); it
 * drains them once the launcher is gone, so that the children's shutdown logs never meet EPIPE.
 */

/** On top of the children's own forced exit, for the exit itself (flushing logs, closing sockets). */
const GROUP_MARGIN_MS = 5_000
/** PostgreSQL's fast shutdown and Redis's AOF flush take well under this. */
const SERVER_STOP_MS = 30_000

const groups = new Map<number, number>()
const servers = new Map<string, StopBySignal>()
let released = false

// Detached from the launcher's process group already; a hang-up of its terminal is not ours to obey.
process.on('SIGHUP', () => {})

createInterface({ input: process.stdin })
  .on('line', (line) => {
    const message = JSON.parse(line) as ReaperMessage
    if ('group' in message) groups.set(message.group, message.graceMs)
    else if ('ungroup' in message) groups.delete(message.ungroup)
    else if ('server' in message) servers.set(message.server.name, message.server)
    else if ('release' in message) released = true
  })
  .on('close', () => {
    if (released) process.exit(0)
    drainOutputs(Number(process.argv[2] ?? 0))
    reap().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  })

async function reap(): Promise<void> {
  const graceMs = Math.max(0, ...groups.values()) + GROUP_MARGIN_MS
  await until(() => [...groups.keys()].every((group) => !groupAlive(group)), graceMs)
  for (const group of groups.keys()) signal(-group, 'SIGKILL')
  for (const server of servers.values()) {
    const pid = pidFrom(server.pidFile)
    if (pid === undefined || !processAlive(pid)) continue
    signal(pid, server.signal)
    await until(() => !processAlive(pid), SERVER_STOP_MS)
  }
}

function drainOutputs(count: number): void {
  for (let fd = 3; fd < 3 + count; fd++) {
    const output = new Socket({ fd, readable: true, writable: false })
    // Read and drop: the lines had one reader, the launcher, and it is gone.
    output.on('error', () => output.destroy())
    output.resume()
  }
}

async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch {
    // Gone already: what the signal was for.
  }
}

function pidFrom(pidFile: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(pidFile, 'utf8').split('\n')[0] ?? '', 10)
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/**
 * Whether a live (not zombie) process is in the group. Orphans are reparented to PID 1, and in a
 * container that PID 1 may never reap them: `kill(-group, 0)` would count their zombies as alive.
 */
function groupAlive(group: number): boolean {
  if (!existsSync('/proc/self/stat')) return processAlive(-group)
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const stat = procStat(Number(entry))
    if (stat && stat.group === group && stat.state !== 'Z') return true
  }
  return false
}

function processAlive(pid: number): boolean {
  if (pid > 0 && existsSync('/proc/self/stat')) {
    const stat = procStat(pid)
    return stat !== undefined && stat.state !== 'Z'
  }
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** State and process group from /proc/<pid>/stat; the command name may hold spaces and parentheses. */
function procStat(pid: number): { state: string; group: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
    return { state: fields[0] ?? '', group: Number(fields[2]) }
  } catch {
    return undefined
  }
}
