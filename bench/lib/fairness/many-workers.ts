import type { Sql } from 'postgres'
import { type ExtraProcesses, startExtraProcesses } from '../many-processes'
import type { BenchPlatform } from '../platform'
import { countByMessageId, sinkClient } from '../sink-client'
import {
  handoverMs,
  type LeadershipInterval,
  leadershipIntervals,
  leadershipRecorder,
  overlappingLeaders,
} from './leadership'

/**
 * `pnpm bench:fairness --workers N`: the split layout's two worker processes (`worker` for bulk,
 * `worker-tx` for the transactional lanes) and N − 2 more bulk workers (`worker3`…), every one
 * running a pacer candidate; their logs give who led when (leadership.ts). Mid-run the leader is
 * SIGKILLed and, as an orchestrator would, replaced by a process of the same settings (named
 * `<name>.r`).
 */
export interface PacerCandidates {
  names: string[]
  /** SIGKILLs the leader of the moment and starts its replacement; what happened, for the result. */
  killLeader(): Promise<{ killed: string; killedAt: number; replacement: string }>
  /** Spells as leader, overlaps and the handover after the kill, up to now. */
  leadership(): LeadershipFigures
  stop(): Promise<void>
}

export interface LeadershipFigures {
  candidates: string[]
  /** `fromMs`, `toMs`: from the moment every candidate was up (a spell begun before it: negative). */
  intervals: Array<Omit<LeadershipInterval, 'from' | 'to'> & { fromMs: number; toMs: number }>
  leaders: number
  overlaps: number
  killed: string | null
  handoverMs: number | null
}

/** The bench platform's settings for this mode: info logs, where the leadership lines are. */
export const PACER_CANDIDATE_SETTINGS = { LOG_LEVEL: 'info', WORKER_LAYOUT: 'split' }

export function createLeadershipLog(forward: NodeJS.WritableStream = process.stderr) {
  return leadershipRecorder(forward)
}

export async function startPacerCandidates(
  bench: BenchPlatform,
  recorder: ReturnType<typeof leadershipRecorder>,
  workers: number,
): Promise<PacerCandidates> {
  if (bench.config.WORKER_LAYOUT !== 'split') throw new Error('--workers needs WORKER_LAYOUT=split')
  const { WORKER_METRICS_PORT: metricsPort } = bench.config
  const bulkEnv = { WORKER_LANES: 'bulk', WORKER_NICE: String(bench.config.WORKER_NICE || 10) }
  // How each process was started, to start its replacement the same way.
  const specs = new Map<string, { port: number; env: Record<string, string> }>([
    ['worker', { port: metricsPort, env: bulkEnv }],
    [
      'worker-tx',
      {
        port: metricsPort + 1,
        env: { WORKER_LANES: 'critical,default', WORKER_NICE: String(bench.config.WORKER_TX_NICE) },
      },
    ],
  ])
  const extra: ExtraProcesses = await startExtraProcesses(bench, { webs: 1, output: recorder.stream })
  const names = ['worker', 'worker-tx']
  try {
    for (let index = 3; index <= workers; index++) {
      const name = `worker${index}`
      specs.set(name, { port: metricsPort + index - 1, env: bulkEnv })
      await extra.startWorker(name, metricsPort + index - 1, bulkEnv)
      names.push(name)
    }
  } catch (error) {
    await extra.stop()
    throw error
  }
  const startedAt = Date.now()
  const killedAt = new Map<string, number>()
  let kill: { killed: string; killedAt: number } | undefined
  return {
    names,
    async killLeader() {
      const killed = recorder.currentLeader(new Set(killedAt.keys()))
      if (!killed) throw new Error('no pacer leader in the workers’ logs to kill')
      const spec = specs.get(killed)
      if (!spec) throw new Error(`the leader ${killed} is not one of the pacer candidates`)
      const at = Date.now()
      killedAt.set(killed, at)
      kill = { killed, killedAt: at }
      if (extra.processes.has(killed)) await extra.kill(killed)
      else await bench.killProcess(killed)
      const replacement = `${killed}.r`
      await extra.startWorker(replacement, spec.port, spec.env)
      names.push(replacement)
      return { killed, killedAt: at, replacement }
    },
    leadership() {
      const intervals = leadershipIntervals(recorder.events, killedAt, Date.now())
      return {
        candidates: [...names],
        intervals: intervals.map(({ from, to, ...rest }) => ({
          ...rest,
          fromMs: from - startedAt,
          toMs: to - startedAt,
        })),
        leaders: new Set(intervals.map((interval) => interval.process)).size,
        overlaps: overlappingLeaders(intervals).length,
        killed: kill?.killed ?? null,
        handoverMs: kill ? handoverMs(intervals, kill.killed, kill.killedAt) : null,
      }
    },
    stop: () => extra.stop(),
  }
}

/**
 * Every message of `campaignIds` the database calls sent arrived at the sink exactly once (by
 * Message-ID), once none is still queued or sending (a killed worker's claims run out first).
 */
export async function checkExactlyOnce(
  sql: Sql,
  input: { inboxUrl: string; mailDomain: string; campaignIds: string[]; timeoutMs?: number },
) {
  const deadline = Date.now() + (input.timeoutMs ?? 120_000)
  let open = 0
  for (;;) {
    const [row] = await sql<{ open: number }[]>`
      select count(*)::int as open from messages
      where campaign_id = any(${input.campaignIds}::uuid[]) and status in ('queued', 'sending')`
    open = row?.open ?? 0
    if (open === 0 || Date.now() > deadline) break
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  const rows = await sql<{ id: string; status: string }[]>`
    select id, status from messages where campaign_id = any(${input.campaignIds}::uuid[])`
  const messageIdOf = (id: string) => `<${id}@${input.mailDomain}>`
  const sent = new Set(rows.filter((row) => row.status === 'sent').map((row) => messageIdOf(row.id)))
  const all = new Set(rows.map((row) => messageIdOf(row.id)))
  const receipts = (await sinkClient(input.inboxUrl).receipts()).filter(
    (receipt) => receipt.messageId !== null && all.has(receipt.messageId),
  )
  const counted = countByMessageId(receipts)
  let lost = 0
  for (const id of sent) if (!counted.distinct.has(id)) lost += 1
  let atSinkNotMarkedSent = 0
  for (const id of counted.distinct) if (!sent.has(id)) atSinkNotMarkedSent += 1
  return {
    markedSent: sent.size,
    atSink: counted.distinct.size,
    duplicates: counted.duplicates,
    lost,
    atSinkNotMarkedSent,
    stillOpen: open,
  }
}
