import { describe, expect, it } from 'vitest'
import {
  handoverMs,
  type LeadershipEvent,
  leadershipIntervals,
  leadershipRecorder,
  overlappingLeaders,
  parseLeadershipLine,
} from './leadership'

const line = (process: string, msg: string, time: number) =>
  `${process.padEnd(7)}| ${JSON.stringify({ level: 30, time, pid: 1, msg })}`

describe('parseLeadershipLine', () => {
  it('reads the advisory lock wording and the lease wording, with the process name and pino time', () => {
    expect(parseLeadershipLine(line('worker', 'pacer is the leader', 1000))).toEqual({
      process: 'worker',
      kind: 'taken',
      at: 1000,
    })
    expect(parseLeadershipLine(line('worker-tx', 'pacer leadership taken', 2000))?.kind).toBe('taken')
    expect(parseLeadershipLine(line('worker3', 'pacer lost its leadership connection', 3000))?.kind).toBe(
      'lost',
    )
    expect(parseLeadershipLine(line('worker3', 'pacer leadership lost', 3000))?.kind).toBe('lost')
    expect(parseLeadershipLine(line('worker', 'pacer leadership released', 4000))?.kind).toBe('released')
  })

  it('strips the colours a terminal gets and ignores every other line', () => {
    expect(
      parseLeadershipLine(
        `\x1b[35mworker |\x1b[0m ${JSON.stringify({ time: 5, msg: 'pacer is the leader' })}`,
      ),
    ).toEqual({ process: 'worker', kind: 'taken', at: 5 })
    expect(parseLeadershipLine(line('worker', 'pacer leadership check failed', 1))).toBeNull()
    expect(parseLeadershipLine(line('worker', 'shutting down', 1))).toBeNull()
    expect(parseLeadershipLine('worker | not json')).toBeNull()
    expect(parseLeadershipLine('{"msg":"pacer is the leader","time":1}')).toBeNull()
  })
})

describe('leadershipIntervals', () => {
  const events: LeadershipEvent[] = [
    { process: 'worker', kind: 'taken', at: 100 },
    { process: 'worker3', kind: 'taken', at: 5_900 },
    { process: 'worker3', kind: 'released', at: 9_000 },
    { process: 'worker-tx', kind: 'taken', at: 9_500 },
  ]

  it('closes a killed leader at its kill, an ended one at its log line, the rest at the end of observation', () => {
    expect(leadershipIntervals(events, new Map([['worker', 5_000]]), 20_000)).toEqual([
      { process: 'worker', from: 100, to: 5_000, end: 'killed' },
      { process: 'worker3', from: 5_900, to: 9_000, end: 'released' },
      { process: 'worker-tx', from: 9_500, to: 20_000, end: 'open' },
    ])
  })

  it('finds no overlap in a clean handover and measures it from the kill', () => {
    const intervals = leadershipIntervals(events, new Map([['worker', 5_000]]), 20_000)
    expect(overlappingLeaders(intervals)).toEqual([])
    expect(handoverMs(intervals, 'worker', 5_000)).toBe(900)
  })

  it('reports two leaders at once, and no handover when nobody took over', () => {
    const intervals = leadershipIntervals(
      [
        { process: 'worker', kind: 'taken', at: 0 },
        { process: 'worker3', kind: 'taken', at: 50 },
      ],
      new Map(),
      100,
    )
    expect(overlappingLeaders(intervals)).toHaveLength(1)
    expect(
      handoverMs(
        leadershipIntervals([{ process: 'worker', kind: 'taken', at: 0 }], new Map([['worker', 10]]), 99),
        'worker',
        10,
      ),
    ).toBeNull()
  })
})

describe('leadershipRecorder', () => {
  it('forwards every line but the per-message ones and collects the events, across chunk boundaries', async () => {
    const forwarded: string[] = []
    const { Writable } = await import('node:stream')
    const sink = new Writable({
      write(chunk, _encoding, callback) {
        forwarded.push(chunk.toString())
        callback()
      },
    })
    const recorder = leadershipRecorder(sink)
    const kept = `${line('worker', 'pacer is the leader', 10)}\n${line('worker', 'other', 11)}\n`
    const text = `${kept}${line('worker', 'message sent', 12)}\n`
    await new Promise<void>((resolve) => recorder.stream.write(text.slice(0, 20), () => resolve()))
    await new Promise<void>((resolve) => recorder.stream.write(text.slice(20), () => resolve()))
    expect(forwarded.join('')).toBe(kept)
    expect(recorder.events).toEqual([{ process: 'worker', kind: 'taken', at: 10 }])
    expect(recorder.currentLeader()).toBe('worker')
    expect(recorder.currentLeader(new Set(['worker']))).toBeNull()
  })
})
