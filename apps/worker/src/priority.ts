import { readdirSync } from 'node:fs'
import { getPriority, setPriority } from 'node:os'
import type { Logger } from 'pino'

export interface PriorityCalls {
  getPriority(): number
  setPriority(priority: number): void
  /**
   * The process's other threads (Linux: `/proc/self/task`, the main thread left out) and a setter for
   * one of them. A nice is a thread's own on Linux, and V8's platform threads (its parallel and
   * concurrent garbage collection, its compilers) start before `main` runs: without this they stay at
   * the nice the process started with. Absent where threads cannot be listed.
   */
  threads?(): number[]
  setThreadPriority?(threadId: number, priority: number): void
}

export const PROCESS_PRIORITY: PriorityCalls = {
  getPriority: () => getPriority(),
  setPriority: (value) => setPriority(value),
  threads: () => {
    let entries: string[]
    try {
      entries = readdirSync('/proc/self/task')
    } catch {
      // Not Linux (no /proc): the process's nice is all there is to set.
      return []
    }
    return entries.map(Number).filter((id) => Number.isInteger(id) && id !== process.pid)
  },
  setThreadPriority: (threadId, value) => setPriority(threadId, value),
}

/**
 * Runs this process at `WORKER_NICE` — every thread of it, not only the main one: the bulk worker's
 * garbage collection left at nice 0 took CPU from the login codes' process as if it were its equal
 * (`bench:fairness`, 2 cores: 11 of the bulk worker's 12 threads ran at nice 0). Lowering (a positive
 * nice: the bulk worker's 10) is always allowed. Raising (a negative nice: the transactional worker's
 * `WORKER_TX_NICE`, so login codes are scheduled before anything at nice 0 when the cores are busy)
 * needs CAP_SYS_NICE (root, or Compose's `cap_add: [SYS_NICE]`); refused, the process keeps its
 * priority and says so in a warning, since it runs correctly, only without its CPU reservation.
 * Threads started later (libuv's pool) inherit the nice of the thread that starts them. Answers the
 * nice it runs at.
 */
export function applyNice(
  nice: number,
  logger: Pick<Logger, 'info' | 'warn'>,
  context: Record<string, unknown>,
  calls: PriorityCalls = PROCESS_PRIORITY,
): number {
  // Every thread starts at the nice the process was started with: nothing to change.
  if (nice === calls.getPriority()) return nice
  try {
    calls.setPriority(nice)
  } catch (error) {
    const kept = calls.getPriority()
    logger.warn(
      { err: (error as Error).message, asked: nice, nice: kept, ...context },
      nice < kept
        ? 'worker could not raise its CPU priority (needs CAP_SYS_NICE); it runs without that reservation'
        : 'worker could not change its CPU priority',
    )
    return kept
  }
  const now = calls.getPriority()
  const threads = niceThreads(now, calls)
  if (threads.failed.length > 0) {
    logger.warn(
      { nice: now, threads: threads.set, failed: threads.failed.length, err: threads.failed[0], ...context },
      'worker could not give every thread its CPU priority; the others keep theirs',
    )
  }
  logger.info(
    { nice: now, threads: threads.set, ...context },
    now > 0 ? 'worker runs at lower CPU priority' : 'worker runs at higher CPU priority',
  )
  return now
}

/** Gives each of the process's other threads `nice`; a thread that ended meanwhile is not a failure. */
function niceThreads(nice: number, calls: PriorityCalls): { set: number; failed: string[] } {
  const result = { set: 0, failed: [] as string[] }
  if (!calls.threads || !calls.setThreadPriority) return result
  for (const threadId of calls.threads()) {
    try {
      calls.setThreadPriority(threadId, nice)
      result.set += 1
    } catch (error) {
      if (/ESRCH/.test((error as Error).message)) continue
      result.failed.push((error as Error).message)
    }
  }
  return result
}
