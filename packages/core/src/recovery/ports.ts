import type { Lane } from '../domain/lanes'

/**
 * What `sweepStrandedMessages` needs from the outside, as interfaces: the message rows in PostgreSQL
 * (`@fairlane/db/queries/sweeper`) and the lanes' jobs in Redis (BullMQ, in the worker).
 */

/** A message that should be moving: `queued` for a while, or `sending` with an expired claim. */
export interface StrandedMessage {
  id: string
  tenantId: string
  lane: Lane
  generation: number
  status: 'queued' | 'sending'
}

/** What a lane says of a job (BullMQ's states); `unknown`: it has no such job. */
export type LaneJobState =
  | 'waiting'
  | 'active'
  | 'delayed'
  | 'prioritized'
  | 'waiting-children'
  | 'completed'
  | 'failed'
  | 'unknown'

/**
 * A send the server accepted and nobody recorded: the claim it went out under, as the message's job
 * kept it once marking it `sent` had failed (`acceptedLockToken`), and the server's reply if known.
 */
export interface AcceptedSend {
  lockToken: string
  response?: string | undefined
}

export interface LaneJobs {
  /** The state of the message's job under its current generation; rejects when the queue cannot answer. */
  jobStateOf(message: StrandedMessage): Promise<LaneJobState>
  /**
   * The accepted send the message's job (current generation) holds, null when it holds none or is
   * gone; rejects when the queue cannot answer. Asked only of `sending` messages whose job failed.
   */
  acceptedSendOf(message: StrandedMessage): Promise<AcceptedSend | null>
}

export interface SweepStore {
  /**
   * Messages that may be stranded, read with no lock: `queued` for longer than `queuedForMs`, or
   * `sending` with an expired claim, and none with an outbox row the relay has yet to publish.
   */
  findStranded(input: { queuedForMs: number; limit: number }): Promise<StrandedMessage[]>
  /** Runs `work` in one database transaction. */
  transaction<T>(work: (tx: SweepTransaction) => Promise<T>): Promise<T>
}

export interface SweepTransaction {
  /** True when this transaction is the one sweep deciding across all processes (held until it ends). */
  tryTakeSweepLock(): Promise<boolean>
  /** Those of `ids` still stranded, locked until the transaction ends; rows locked by others are skipped. */
  findStillStranded(input: { queuedForMs: number; ids: readonly string[] }): Promise<StrandedMessage[]>
  /**
   * The message back on its lane under the next generation, with its outbox row for the relay; false
   * when the row moved on (another generation, or no longer queued or sending).
   */
  republish(message: StrandedMessage): Promise<boolean>
  /**
   * The message marked `sent` under the claim its server accepted (same generation, still `sending`
   * under that token), with a `sent` event saying the sweeper recorded it; false when the row moved on.
   */
  recordAcceptedSend(message: StrandedMessage, accepted: AcceptedSend): Promise<boolean>
  /** Wakes the relay (delivered when the transaction commits). */
  notifyRelay(): Promise<void>
}
