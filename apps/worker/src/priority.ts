import { getPriority, setPriority } from 'node:os'
import type { Logger } from 'pino'

export interface PriorityCalls {
  getPriority(): number
  setPriority(priority: number): void
}

/**
 * Runs this process at `WORKER_NICE`. Lowering (a positive nice: the bulk worker's 10) is always
 * allowed. Raising (a negative nice: the transactional worker's `WORKER_TX_NICE`, so login codes are
 * scheduled before anything at nice 0 when the cores are busy) needs CAP_SYS_NICE (root, or Compose's
 * `cap_add: [SYS_NICE]`); refused, the process keeps its priority and says so in a warning, since
 * it runs correctly, only without its CPU reservation. Answers the nice it runs at.
 */
export function applyNice(
  nice: number,
  logger: Pick<Logger, 'info' | 'warn'>,
  context: Record<string, unknown>,
  calls: PriorityCalls = { getPriority: () => getPriority(), setPriority: (value) => setPriority(value) },
): number {
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
  logger.info(
    { nice: now, ...context },
    now > 0 ? 'worker runs at lower CPU priority' : 'worker runs at higher CPU priority',
  )
  return now
}
