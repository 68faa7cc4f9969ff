import { existsSync, readdirSync, readFileSync } from 'node:fs'

/**
 * Where the CPU goes during a benchmark phase, from /proc (Linux only; elsewhere `available` is
 * false). Processes are attributed to the platform's process groups (each child of the launcher
 * leads its own group, so a `tsx` wrapper and the node it runs count together), to PostgreSQL and
 * Redis by command name (shared servers: other users' work counts too), and to the benchmark
 * itself. `machine` is the whole machine's busy time, so `machine - sum` is everything else.
 */
const TICK_MS = 10 // USER_HZ is 100 on every Linux this runs on (`getconf CLK_TCK`)

export interface CpuSample {
  at: number
  byName: Record<string, number>
  machineBusyMs: number
}

export function cpuAvailable(): boolean {
  return existsSync('/proc/self/stat') && existsSync('/proc/stat')
}

export function sampleCpu(groups: Record<string, number>): CpuSample {
  const byName: Record<string, number> = {}
  const groupNames = new Map(Object.entries(groups).map(([name, pid]) => [pid, name]))
  if (!cpuAvailable()) return { at: performance.now(), byName, machineBusyMs: 0 }
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue // exited between readdir and read
    }
    const close = stat.lastIndexOf(')')
    const comm = stat.slice(stat.indexOf('(') + 1, close)
    const fields = stat.slice(close + 2).split(' ')
    const pgrp = Number(fields[2])
    const ms = (Number(fields[11]) + Number(fields[12])) * TICK_MS
    const pid = Number(entry)
    const name =
      groupNames.get(pgrp) ??
      (pid === process.pid
        ? 'bench'
        : comm.startsWith('postgres')
          ? 'postgres'
          : comm.startsWith('redis-server')
            ? 'redis'
            : null)
    if (name !== null) byName[name] = (byName[name] ?? 0) + ms
  }
  const [, ...ticks] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/)
  const values = ticks.map(Number)
  // user nice system idle iowait irq softirq steal: busy is everything but idle and iowait.
  const busy = values
    .slice(0, 8)
    .reduce((sum, value, index) => (index === 3 || index === 4 ? sum : sum + value), 0)
  return { at: performance.now(), byName, machineBusyMs: busy * TICK_MS }
}

/** CPU time each process spent between two samples, and as a share of one core over the interval. */
export function cpuBetween(before: CpuSample, after: CpuSample) {
  const seconds = (after.at - before.at) / 1000
  const ms: Record<string, number> = {}
  for (const [name, value] of Object.entries(after.byName)) ms[name] = value - (before.byName[name] ?? 0)
  const cores: Record<string, number> = {}
  for (const [name, value] of Object.entries(ms))
    cores[name] = Math.round((value / 1000 / seconds) * 100) / 100
  return {
    seconds: Math.round(seconds * 10) / 10,
    cpuMs: ms,
    /** 1.0 = one core fully busy. */
    cores,
    machineCores: Math.round(((after.machineBusyMs - before.machineBusyMs) / 1000 / seconds) * 100) / 100,
  }
}
