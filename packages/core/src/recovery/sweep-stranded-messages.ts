import type { AcceptedSend, LaneJobState, LaneJobs, StrandedMessage, SweepStore } from './ports'

export interface SweepInput {
  /** A queued message older than this with no live job is published again. */
  queuedForMs: number
  batchSize: number
}

export interface SweepDeps {
  store: SweepStore
  jobs: LaneJobs
}

export interface RepublishedMessage extends StrandedMessage {
  /** The state its lost job was in; the message now has the next generation. */
  jobState: LaneJobState
}

/** A message whose failed job held an accepted send: recorded `sent` instead of republished. */
export interface RecordedMessage extends StrandedMessage {
  accepted: AcceptedSend
}

export interface SweepOutcome {
  /** False when another process's sweep held the lock this pass. */
  leader: boolean
  examined: number
  republished: RepublishedMessage[]
  recorded: RecordedMessage[]
}

/** A job in one of these states will still run; anything else ('completed', 'failed', 'unknown') will not. */
const LIVE_STATES = new Set<LaneJobState>(['active', 'waiting', 'delayed', 'prioritized', 'waiting-children'])

/**
 * PostgreSQL is the truth and Redis only holds what is in flight, so a message that should be moving
 * but has no live job (Redis restarted without its data, an addBulk lost with its relay, a job that
 * stalled out) is published again under a new generation.
 *
 * Three steps, so that no database transaction is ever open while the queue is asked (a Redis outage
 * would otherwise hold row locks and a pooled connection for as long as it lasts):
 *  1. read the candidates, no locks;
 *  2. ask the lanes for each one's job; if one cannot answer, the pass fails and republishes nothing:
 *     not knowing is no reason to duplicate;
 *  3. one short transaction: the sweep lock (one pass decides at a time across processes), the rows
 *     whose job is gone re-read and locked, and only those still stranded at the same generation and
 *     status are republished. A job found gone cannot come back under the same job id without the
 *     row changing first (a claim moves it to a fresh `sending`, the relay only publishes new outbox
 *     rows), so the re-read is what makes the answer still true.
 *
 * One exception to "publish it again": a `sending` message whose failed job holds an accepted send
 * (the server took the mail, recording it failed, and the job then failed for good). Republished it
 * would be sent a second time; it is recorded `sent` under the claim the server accepted, with an
 * event saying the sweeper did so. Only if that claim no longer matches the row is it republished.
 */
export async function sweepStrandedMessages(input: SweepInput, deps: SweepDeps): Promise<SweepOutcome> {
  const candidates = await deps.store.findStranded({ queuedForMs: input.queuedForMs, limit: input.batchSize })
  if (candidates.length === 0) return { leader: true, examined: 0, republished: [], recorded: [] }
  const states = await Promise.all(candidates.map((message) => deps.jobs.jobStateOf(message)))
  const gone = new Map<string, RepublishedMessage>()
  for (const [index, message] of candidates.entries()) {
    const jobState = states[index] ?? 'unknown'
    if (!LIVE_STATES.has(jobState)) gone.set(message.id, { ...message, jobState })
  }
  if (gone.size === 0) return { leader: true, examined: candidates.length, republished: [], recorded: [] }
  const accepted = await acceptedSends([...gone.values()], deps.jobs)

  return deps.store.transaction(async (tx) => {
    if (!(await tx.tryTakeSweepLock())) return { leader: false, examined: 0, republished: [], recorded: [] }
    const still = await tx.findStillStranded({ queuedForMs: input.queuedForMs, ids: [...gone.keys()] })
    const republished: RepublishedMessage[] = []
    const recorded: RecordedMessage[] = []
    for (const message of still) {
      const seen = gone.get(message.id)
      if (!seen || seen.generation !== message.generation || seen.status !== message.status) continue
      const send = accepted.get(message.id)
      if (send && (await tx.recordAcceptedSend(message, send))) {
        recorded.push({ ...message, accepted: send })
        continue
      }
      if (await tx.republish(message)) republished.push({ ...message, jobState: seen.jobState })
    }
    if (republished.length > 0) await tx.notifyRelay()
    return { leader: true, examined: candidates.length, republished, recorded }
  })
}

/** The accepted sends that the failed jobs of `sending` messages hold, by message id. */
async function acceptedSends(
  gone: readonly RepublishedMessage[],
  jobs: LaneJobs,
): Promise<Map<string, AcceptedSend>> {
  const asked = gone.filter((message) => message.status === 'sending' && message.jobState === 'failed')
  const answers = await Promise.all(asked.map((message) => jobs.acceptedSendOf(message)))
  const found = new Map<string, AcceptedSend>()
  for (const [index, message] of asked.entries()) {
    const answer = answers[index]
    if (answer) found.set(message.id, answer)
  }
  return found
}
