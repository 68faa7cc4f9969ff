import { parseReturnPath } from '@fairlane/core'
import type { Database } from '@fairlane/db'
import { createFeedbackStore } from '@fairlane/db/queries/feedback'
import { sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import { type InboundHttpServer, startInboundHttpServer } from './http-server'
import { createInboundMetrics, type InboundMetrics } from './metrics'
import { createReportReceiver } from './receive-report'
import { createInboundSmtp, type InboundLimits } from './smtp-server'
import { type StatusSettler, startStatusSettler } from './status-settler'

export interface InboundOptions {
  db: Database
  logger: Logger
  host: string
  smtpPort: number
  httpPort: number
  /** Every UNSUBSCRIBE_SECRET secret: the worker signs return paths with the first, all verify. */
  secrets: readonly string[]
  bounceDomain: string
  softBounceLimit: number
  metricsToken?: string | undefined
  requireMetricsToken?: boolean
  limits?: Partial<InboundLimits>
  /** How often waiting statuses are settled, and how long a message may wait for its send. */
  settleIntervalMs?: number
  settleMaxAgeMs?: number
  clock?: { now(): Date }
}

export interface Inbound {
  smtpPort: number
  httpPort: number
  metrics: InboundMetrics
  settler: StatusSettler
  /** Stops taking mail (421), finishes the reports being applied, then stops the rest. */
  close(): Promise<void>
}

/** Soft bounces count within this many days (the policy's window, not a setting). */
const SOFT_BOUNCE_WINDOW_DAYS = 30
const DAY_MS = 24 * 60 * 60 * 1000

/**
 * The inbound server's parts, wired: SMTP for return paths, the report reader and `applyFeedback`,
 * the loop that settles statuses of messages whose report overtook their send, health and metrics.
 * The database and logger come from the composition root (`main.ts`).
 */
export async function startInbound(options: InboundOptions): Promise<Inbound> {
  const { db, logger } = options
  const clock = options.clock ?? { now: () => new Date() }
  const store = createFeedbackStore(db)
  const metrics = createInboundMetrics()
  const settleMaxAgeMs = options.settleMaxAgeMs ?? DAY_MS
  const settler = startStatusSettler({
    store,
    logger,
    intervalMs: options.settleIntervalMs ?? 5_000,
    maxAgeMs: settleMaxAgeMs,
    onPendingChange: metrics.setPendingStatuses,
  })
  const recovered = await settler.recover(new Date(clock.now().getTime() - settleMaxAgeMs))
  if (recovered > 0) logger.info({ recovered }, 'feedback statuses to settle, from before this start')

  const secrets = options.secrets
  const smtp = createInboundSmtp({
    logger,
    limits: options.limits,
    acceptsRecipient: (address) => parseReturnPath(address, { secrets }) !== null,
    onRefused: (reason) => {
      metrics.refused(reason)
      if (reason === 'bad-recipient') metrics.message('forged')
    },
    receive: createReportReceiver({
      feedback: {
        store,
        clock,
        returnPath: { secrets, bounceDomain: options.bounceDomain },
        softBounce: { limit: options.softBounceLimit, windowDays: SOFT_BOUNCE_WINDOW_DAYS },
      },
      logger,
      metrics,
      settler,
    }),
  })

  let http: InboundHttpServer | undefined
  try {
    http = await startInboundHttpServer({
      host: options.host,
      port: options.httpPort,
      registry: metrics.registry,
      metricsToken: options.metricsToken,
      requireToken: options.requireMetricsToken ?? false,
      health: async () => {
        if (!smtp.listening()) return 'smtp not listening'
        await Promise.race([
          db.execute(sql`select 1`),
          new Promise((_, reject) =>
            setTimeout(() => reject(new Error('database did not answer in 2 s')), 2_000).unref(),
          ),
        ])
        return null
      },
    })
    const smtpPort = await smtp.listen(options.smtpPort, options.host)
    const httpServer = http
    return {
      smtpPort,
      httpPort: httpServer.port,
      metrics,
      settler,
      async close() {
        await smtp.close()
        await settler.stop()
        await httpServer.close()
      },
    }
  } catch (error) {
    await settler.stop()
    await http?.close()
    throw error
  }
}
