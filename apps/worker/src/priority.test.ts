import { describe, expect, it } from 'vitest'
import { applyNice, type PriorityCalls } from './priority'

/** A process priority as the kernel keeps it: raising it (a lower nice) takes the privilege. */
function processPriority(start: number, privileged: boolean): PriorityCalls & { value: number } {
  return {
    value: start,
    getPriority() {
      return this.value
    },
    setPriority(nice) {
      if (nice < this.value && !privileged) throw new Error('setpriority EACCES (permission denied)')
      this.value = nice
    },
  }
}

function recordingLogger() {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = []
  return {
    lines,
    info: (fields: Record<string, unknown>, message: string) =>
      lines.push({ level: 'info', fields, message }),
    warn: (fields: Record<string, unknown>, message: string) =>
      lines.push({ level: 'warn', fields, message }),
  }
}

describe('applyNice', () => {
  it('lowers the bulk worker without privileges', () => {
    const logger = recordingLogger()
    const calls = processPriority(0, false)
    expect(applyNice(10, logger as never, { lanes: ['bulk'] }, calls)).toBe(10)
    expect(logger.lines).toEqual([
      {
        level: 'info',
        fields: { nice: 10, threads: 0, lanes: ['bulk'] },
        message: 'worker runs at lower CPU priority',
      },
    ])
  })

  it('gives every other thread the same nice, skipping one that ended meanwhile', () => {
    const logger = recordingLogger()
    const niced = new Map<number, number>()
    const calls = {
      ...processPriority(0, false),
      threads: () => [101, 102, 103],
      setThreadPriority(threadId: number, nice: number) {
        if (threadId === 102)
          throw new Error('A system error occurred: uv_os_setpriority returned ESRCH (no such process)')
        niced.set(threadId, nice)
      },
    }
    expect(applyNice(10, logger as never, {}, calls)).toBe(10)
    expect([...niced]).toEqual([
      [101, 10],
      [103, 10],
    ])
    expect(logger.lines).toEqual([
      { level: 'info', fields: { nice: 10, threads: 2 }, message: 'worker runs at lower CPU priority' },
    ])
  })

  it('warns when a thread refuses its nice, naming the error', () => {
    const logger = recordingLogger()
    const calls = {
      ...processPriority(0, true),
      threads: () => [101],
      setThreadPriority() {
        throw new Error('setpriority EACCES (permission denied)')
      },
    }
    expect(applyNice(-5, logger as never, {}, calls)).toBe(-5)
    expect(logger.lines[0]).toEqual({
      level: 'warn',
      fields: { nice: -5, threads: 0, failed: 1, err: 'setpriority EACCES (permission denied)' },
      message: 'worker could not give every thread its CPU priority; the others keep theirs',
    })
  })

  it('raises the transactional worker where allowed', () => {
    const logger = recordingLogger()
    expect(applyNice(-5, logger as never, {}, processPriority(0, true))).toBe(-5)
    expect(logger.lines.map((line) => line.message)).toEqual(['worker runs at higher CPU priority'])
  })

  it('refused the privilege, keeps its priority and warns naming what it lacks', () => {
    const logger = recordingLogger()
    expect(applyNice(-5, logger as never, { lanes: ['critical'] }, processPriority(0, false))).toBe(0)
    expect(logger.lines).toEqual([
      {
        level: 'warn',
        fields: { err: 'setpriority EACCES (permission denied)', asked: -5, nice: 0, lanes: ['critical'] },
        message:
          'worker could not raise its CPU priority (needs CAP_SYS_NICE); it runs without that reservation',
      },
    ])
  })

  it('leaves a process already at its nice alone', () => {
    const logger = recordingLogger()
    expect(applyNice(0, logger as never, {}, processPriority(0, false))).toBe(0)
    expect(logger.lines).toEqual([])
  })
})
