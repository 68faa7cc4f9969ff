import { readFileSync } from 'node:fs'

const TICK_MS = 10 // USER_HZ, as in cpu.ts

/**
 * CPU time (user + system) one process has used so far, from /proc; 0 where there is no /proc or
 * the process is gone. For a server started outside the platform's process groups (the benchmark's
 * own redis-server), which `sampleCpu` can only count together with every other redis-server.
 */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS
  } catch {
    return 0
  }
}
