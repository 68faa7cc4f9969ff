import type { Logger } from 'pino'

export interface ShutdownStep {
  name: string
  run: () => Promise<void> | void
}

/**
 * SIGTERM/SIGINT handling, once. Steps run in order — lane workers first (BullMQ's close waits for
 * running jobs), then what they used (transports, database, Redis) — and the process exits 0.
 * The forced exit fires after `forceExitMs`, which must stay below the orchestrator's grace
 * period: being killed mid-send is worse than exiting 1, because a job killed by SIGKILL only comes
 * back after its lock expires.
 */
export function installShutdown(options: {
  steps: () => ShutdownStep[]
  forceExitMs: number
  logger: Logger
  onBegin?: () => void
  exit?: (code: number) => void
}): { shutdown: (reason: string) => Promise<void> } {
  const exit = options.exit ?? ((code: number) => process.exit(code))
  let begun = false

  async function shutdown(reason: string): Promise<void> {
    if (begun) return
    begun = true
    options.onBegin?.()
    options.logger.info({ reason, forceExitMs: options.forceExitMs }, 'shutting down')
    const timer = setTimeout(() => {
      options.logger.error({ forceExitMs: options.forceExitMs }, 'forced exit: shutdown took too long')
      exit(1)
    }, options.forceExitMs)
    timer.unref()
    let failed = false
    for (const step of options.steps()) {
      try {
        await step.run()
        options.logger.debug({ step: step.name }, 'closed')
      } catch (error) {
        failed = true
        options.logger.error({ step: step.name, err: (error as Error).message }, 'shutdown step failed')
      }
    }
    clearTimeout(timer)
    options.logger.info({ failed }, 'shutdown complete')
    exit(failed ? 1 : 0)
  }

  // `on`, not `once`: a second signal while draining must not fall through to Node's default (kill).
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
  return { shutdown }
}
