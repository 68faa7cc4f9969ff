import { OUTBOX_CHANNEL } from '@fairlane/core'
import { oldestWaitingOutboxMs } from '@fairlane/db/queries/outbox'
import type { Sql } from 'postgres'
import { listenOrPoll } from '../listen-or-poll'
import type { DeliverySignals } from '../signals'
import { createWakeSignal } from '../wake-signal'
import { type BatchResult, nextParkedTurnInMs, type PublishDeps, publishOutboxBatch } from './publish-batch'

export interface RelayOptions extends PublishDeps {
  /**
   * A dedicated connection for LISTEN (not the pool: behind PgBouncer it must be direct). postgres.js
   * re-listens after a reconnect and calls `onlisten` again; we poll then too, since notifications
   * sent while disconnected are gone.
   */
  listenSql?: Sql
  /** Fallback poll: at most this long between passes when no NOTIFY arrives. */
  pollMs: number
  /** Upper bound of the backoff after failed passes (Redis or PostgreSQL away). */
  maxBackoffMs: number
  /**
   * `slotFreed`: a lane job of a tenant gave its slot back (`laneParkKey`); if the relay had set the
   * tenant aside as full, it looks at its parked rows now.
   */
  signals?: Pick<DeliverySignals, 'slotFreed'>
  /**
   * A backstop relay (a process that serves bulk and no transactional lane): it does not LISTEN and,
   * each poll, passes only when some row has waited longer than this. Fresh rows, login codes among
   * them, are left to the relays of the processes that serve their lanes, so a code is never claimed
   * by a process whose CPU (nice 10) and event loop belong to bulk; if those relays stop, this one
   * publishes what they left after this long.
   */
  backstopAfterMs?: number
}

export interface Relay {
  /** Makes the loop run a pass now (what a NOTIFY does). */
  wake(): void
  /** Lets the current pass finish, stops the loop and the LISTEN. */
  stop(): Promise<void>
}

/**
 * Turns outbox rows into lane jobs, woken by NOTIFY with a poll as fallback. One pass at a time per
 * relay; a full batch loops at once so a backlog drains at full speed. A failed pass is retried with
 * backoff and never drops a row: the rows stay unpublished until a pass commits them.
 */
export function startRelay(options: RelayOptions): Relay {
  const wakeSignal = createWakeSignal()
  let stopped = false
  const backstop = options.backstopAfterMs !== undefined
  const listening = backstop
    ? Promise.resolve(undefined)
    : listenOrPoll(options.listenSql, {
        channel: OUTBOX_CHANNEL,
        wake: wakeSignal.wake,
        logger: options.logger,
        who: 'relay',
        fallback: 'relying on its poll',
      })
  const unsubscribe = options.signals?.slotFreed.subscribe((parkKey) => {
    if (options.fairness?.parking.unblock(parkKey)) wakeSignal.wake()
  })

  async function loop(): Promise<void> {
    let failures = 0
    while (!stopped) {
      if (backstop && failures === 0 && !(await backlogWaiting(options))) {
        await wakeSignal.sleep(options.pollMs, { ignoreWake: true })
        continue
      }
      const result = await passSafely(options, failures)
      failures = result ? 0 : failures + 1
      if (stopped) break
      if (!result) await wakeSignal.sleep(backoffMs(failures, options.maxBackoffMs), { ignoreWake: true })
      else if (!fullBatch(result, options.batchSize)) await wakeSignal.sleep(await pauseMs(options))
    }
  }

  const running = loop()
  return {
    wake: wakeSignal.wake,
    async stop() {
      stopped = true
      unsubscribe?.()
      wakeSignal.interrupt()
      await running
      const listener = await listening
      await listener?.unlisten().catch(() => {})
    },
  }
}

/**
 * A batch that moved a full batch's worth, or left some tenant's rows behind (more than its share),
 * loops at once; parked rows left untouched do not count, or a full tenant's rows could keep the relay
 * spinning.
 */
function fullBatch(result: BatchResult, batchSize: number): boolean {
  const moved = result.claimed - (result.stillParked ?? 0)
  return (result.claimed >= batchSize || result.cut === true) && moved > 0
}

/** Until the poll, or sooner when a parked row's turn (or a set-aside tenant's retry) comes first. */
async function pauseMs(options: RelayOptions): Promise<number> {
  try {
    const turnInMs = await nextParkedTurnInMs(options)
    return turnInMs === undefined
      ? options.pollMs
      : Math.min(options.pollMs, Math.max(1, Math.ceil(turnInMs)))
  } catch (error) {
    options.logger.warn({ err: (error as Error).message }, 'could not read the next parked turn; polling')
    return options.pollMs
  }
}

/** A backstop relay's check: has some row waited past `backstopAfterMs`? A failed read counts as yes. */
async function backlogWaiting(options: RelayOptions): Promise<boolean> {
  try {
    const waitedMs = await oldestWaitingOutboxMs(options.db)
    return waitedMs !== undefined && waitedMs >= (options.backstopAfterMs ?? 0)
  } catch (error) {
    options.logger.warn(
      { err: (error as Error).message },
      'backstop relay could not read the outbox; passing',
    )
    return true
  }
}

async function passSafely(options: RelayOptions, failures: number): Promise<BatchResult | undefined> {
  try {
    const result = await publishOutboxBatch(options)
    options.metrics?.outboxPublished.inc(result.published)
    if (result.claimed > 0) options.metrics?.relayPassRows.observe(result.claimed)
    if (failures > 0) options.logger.info({ afterFailures: failures }, 'relay recovered')
    return result
  } catch (error) {
    options.metrics?.relayFailures.inc()
    options.logger.warn(
      { err: (error as Error).message, failures: failures + 1 },
      'relay pass failed; rows stay unpublished and will be retried',
    )
    return undefined
  }
}

/** 100 ms, 200 ms, 400 ms … up to the cap, with jitter so several relays do not retry in step. */
function backoffMs(failures: number, maxMs: number): number {
  const base = Math.min(maxMs, 100 * 2 ** Math.min(failures - 1, 16))
  return base / 2 + Math.random() * (base / 2)
}
