import { type ManagedProcess, signalGroup } from '@fairlane/stack'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, expect, it } from 'vitest'
import { freePorts } from '../delivery-platform'
import { startWorkerProcess } from '../many-processes'
import { leadershipIntervals, leadershipRecorder, overlappingLeaders } from './leadership'

/**
 * The pacer's leadership across real worker processes: three candidates on one database, one
 * leader; SIGKILL it and another takes over, the spells never overlapping (read from their logs, as
 * `pnpm bench:fairness --workers 3` does).
 */
const test = setupTestEnvironment('pacer-leadership')
const running: ManagedProcess[] = []

afterAll(async () => {
  await Promise.all(running.map((managed) => managed.stop()))
})

async function until<T>(what: string, read: () => T | null, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = read()
    if (value !== null) return value
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs / 1000} s`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

it('hands the pacer over to another process when its leader is SIGKILLed, one leader at a time', async () => {
  const [smtpPort, ...metricsPorts] = await freePorts(4)
  const recorder = leadershipRecorder(
    // Only the leadership lines matter here; the rest would bury vitest's output.
    new (await import('node:stream')).Writable({ write: (_chunk, _encoding, callback) => callback() }),
  )
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    DATABASE_URL: test.databaseUrl,
    REDIS_URL: test.redisUrl,
    QUEUE_PREFIX: test.queuePrefix,
    // Nothing is sent: the workers boot without an SMTP server (their pools connect lazily).
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    APP_URL: 'http://127.0.0.1:3999',
    MAIL_DOMAIN: 'fairlane.test',
  }
  const names = ['w1', 'w2', 'w3']
  const processes = new Map<string, ManagedProcess>()
  await Promise.all(
    names.map((name, index) =>
      startWorkerProcess({
        name,
        env,
        metricsPort: metricsPorts[index] as number,
        output: recorder.stream,
        started: (managed) => {
          running.push(managed)
          processes.set(name, managed)
        },
      }),
    ),
  )

  const first = await until('no pacer leader', () => recorder.currentLeader(), 20_000)
  const killedAt = Date.now()
  // The whole group: a SIGKILL to tsx alone would leave the node process it runs leading.
  await signalGroup(processes.get(first) as ManagedProcess, 'SIGKILL')
  // A follower asks once a second, once the dead leader's lock (or lease) is free.
  const second = await until('no new leader', () => recorder.currentLeader(new Set([first])), 20_000)
  const intervals = leadershipIntervals(recorder.events, new Map([[first, killedAt]]), Date.now())

  expect(second).not.toBe(first)
  expect(recorder.events.filter((event) => event.kind === 'taken').map((event) => event.process)).toEqual([
    first,
    second,
  ])
  expect(overlappingLeaders(intervals)).toEqual([])
  const handover = (intervals.find((interval) => interval.process === second)?.from ?? 0) - killedAt
  expect(handover).toBeGreaterThanOrEqual(0)
  expect(handover).toBeLessThan(15_000)
}, 90_000)
