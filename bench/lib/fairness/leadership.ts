import { Writable } from 'node:stream'

/**
 * The pacer's leadership as the worker processes log it: when each took it and when it ended, read
 * from their prefixed output (`worker |`, `worker-tx|`… then a pino JSON line). Both wordings are
 * read: the advisory lock's ("pacer is the leader", "pacer lost its leadership connection") and the
 * lease's ("pacer leadership taken/lost/released").
 */
export type LeadershipEventKind = 'taken' | 'lost' | 'released'

export interface LeadershipEvent {
  process: string
  kind: LeadershipEventKind
  at: number
}

export interface LeadershipInterval {
  process: string
  from: number
  /** When it lost or released the leadership, was killed, or the observation ended. */
  to: number
  /** How it ended: `killed` (SIGKILL by the benchmark), `open` (still leading when observed last). */
  end: 'lost' | 'released' | 'killed' | 'open'
}

const MESSAGES: Array<[RegExp, LeadershipEventKind]> = [
  [/^pacer is the leader$|^pacer leadership taken/, 'taken'],
  [/^pacer lost its leadership|^pacer leadership lost/, 'lost'],
  [/^pacer leadership released/, 'released'],
]

const PER_MESSAGE_LINE = '"msg":"message sent"'

// biome-ignore lint/suspicious/noControlCharactersInRegex: the launcher colours prefixes on a terminal
const ANSI = /\x1b\[[0-9;]*m/g

/** A leadership event from one prefixed output line, or null. */
export function parseLeadershipLine(line: string): LeadershipEvent | null {
  if (!line.includes('pacer')) return null
  const plain = line.replace(ANSI, '')
  const bar = plain.indexOf('|')
  const brace = plain.indexOf('{')
  if (bar === -1 || brace < bar) return null
  let entry: { msg?: unknown; time?: unknown }
  try {
    entry = JSON.parse(plain.slice(brace)) as { msg?: unknown; time?: unknown }
  } catch {
    return null
  }
  if (typeof entry.msg !== 'string') return null
  const at = typeof entry.time === 'number' ? entry.time : Date.parse(String(entry.time))
  if (!Number.isFinite(at)) return null
  for (const [pattern, kind] of MESSAGES)
    if (pattern.test(entry.msg)) return { process: plain.slice(0, bar).trim(), kind, at }
  return null
}

/**
 * Each process's spells as leader, in order of start. `killedAt`: processes the benchmark killed and
 * when (a SIGKILLed leader logs nothing more); `observedUntil` closes the spells still open.
 */
export function leadershipIntervals(
  events: LeadershipEvent[],
  killedAt: Map<string, number>,
  observedUntil: number,
): LeadershipInterval[] {
  const intervals: LeadershipInterval[] = []
  const open = new Map<string, number>()
  for (const event of [...events].sort((a, b) => a.at - b.at)) {
    const from = open.get(event.process)
    if (event.kind === 'taken') {
      if (from === undefined) open.set(event.process, event.at)
      continue
    }
    if (from === undefined) continue
    intervals.push({ process: event.process, from, to: event.at, end: event.kind })
    open.delete(event.process)
  }
  for (const [process, from] of open) {
    const killed = killedAt.get(process)
    intervals.push(
      killed !== undefined && killed >= from
        ? { process, from, to: killed, end: 'killed' }
        : { process, from, to: observedUntil, end: 'open' },
    )
  }
  return intervals.sort((a, b) => a.from - b.from)
}

/** Pairs of spells of different processes that overlap in time: two leaders at once. */
export function overlappingLeaders(
  intervals: LeadershipInterval[],
): Array<[LeadershipInterval, LeadershipInterval]> {
  const pairs: Array<[LeadershipInterval, LeadershipInterval]> = []
  for (let i = 0; i < intervals.length; i++)
    for (let j = i + 1; j < intervals.length; j++) {
      const a = intervals[i] as LeadershipInterval
      const b = intervals[j] as LeadershipInterval
      if (a.process !== b.process && a.from < b.to && b.from < a.to) pairs.push([a, b])
    }
  return pairs
}

/** From the kill of a leader to the next spell another process started: the handover, in ms. */
export function handoverMs(intervals: LeadershipInterval[], killed: string, killedAt: number): number | null {
  const next = intervals.find((interval) => interval.process !== killed && interval.from >= killedAt)
  return next ? next.from - killedAt : null
}

/**
 * A stream for the launcher's `output`: every line goes on to `forward` as it came, except the
 * workers' one info line per sent message (the leadership lines are info too, so the workers run at
 * info; tens of thousands of those would bury everything else), and the leadership events among
 * them are collected.
 */
export function leadershipRecorder(forward: NodeJS.WritableStream = process.stderr) {
  const events: LeadershipEvent[] = []
  let pending = ''
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      pending += chunk.toString()
      const lines = pending.split('\n')
      pending = lines.pop() ?? ''
      const kept: string[] = []
      for (const line of lines) {
        const event = parseLeadershipLine(line)
        if (event) events.push(event)
        if (!line.includes(PER_MESSAGE_LINE)) kept.push(`${line}\n`)
      }
      if (kept.length === 0) callback()
      else forward.write(kept.join(''), callback)
    },
  })
  return {
    stream,
    events,
    /** The process leading now by the log: the last `taken` not followed by its end, or null. */
    currentLeader(exclude: ReadonlySet<string> = new Set()): string | null {
      const spells = leadershipIntervals(events, new Map(), Date.now())
      const open = spells.filter((spell) => spell.end === 'open' && !exclude.has(spell.process))
      return open.at(-1)?.process ?? null
    },
  }
}
