import { acceptSubmission, checkSubmittedSender, type PlanAdmissionDeps } from '@fairlane/core/accept'
import type { Database } from '@fairlane/db'
import { createSubmissionDomains, createSubmissionStore } from '@fairlane/db/queries/submissions'
import { sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import { createAuthThrottle } from './client-limits'
import { type SubmissionHttpServer, startSubmissionHttpServer } from './http-server'
import { createKeyCheck } from './key-check'
import { createSubmissionMetrics, type SubmissionMetrics } from './metrics'
import { createSubmissionSmtp, type SubmissionLimits } from './smtp-server'

export interface SubmissionOptions {
  db: Database
  logger: Logger
  host: string
  hostName: string
  port: number
  /** Implicit TLS; undefined: not served. */
  tlsPort?: number | undefined
  httpPort: number
  tls?: { key: Buffer; cert: Buffer } | undefined
  allowPlaintextAuth: boolean
  /** The tenants' lane plans and accept buckets, the API's (Redis): every way in spends one plan. */
  planAdmission?: PlanAdmissionDeps | undefined
  authThrottle: { maxFailures: number; windowMs: number }
  keyCacheMs?: number
  metricsToken?: string | undefined
  requireMetricsToken?: boolean
  limits?: Partial<SubmissionLimits> & { maxMessageBytes: number }
  clock?: { now(): Date }
}

export interface Submission {
  port: number
  tlsPort: number | undefined
  httpPort: number
  metrics: SubmissionMetrics
  /** Stops taking mail (421), finishes the messages being written, then stops the rest. */
  close(): Promise<void>
}

/**
 * The submission server's parts, wired: SMTP (STARTTLS and, when set, implicit TLS), the API-key
 * login, `acceptSubmission` on PostgreSQL with the plan's accept buckets, health and metrics. The
 * database, Redis and logger come from the composition root (`main.ts`).
 */
export async function startSubmission(options: SubmissionOptions): Promise<Submission> {
  const { db, logger } = options
  const clock = options.clock ?? { now: () => new Date() }
  const metrics = createSubmissionMetrics()
  const domains = createSubmissionDomains(db)
  const store = createSubmissionStore(db)
  const maxMessageBytes = options.limits?.maxMessageBytes ?? 10 * 1024 * 1024
  const smtp = createSubmissionSmtp({
    logger,
    hostName: options.hostName,
    keys: createKeyCheck({
      db,
      ...(options.keyCacheMs === undefined ? {} : { cacheMs: options.keyCacheMs }),
    }),
    throttle: createAuthThrottle(options.authThrottle),
    metrics,
    tls: options.tls,
    allowPlaintextAuth: options.allowPlaintextAuth,
    async checkEnvelope(user, address) {
      await checkSubmittedSender(
        { tenantId: user.tenantId, address, field: 'MAIL FROM', keyDomain: user.domain },
        { domains },
      )
    },
    accept: ({ user, recipients, data }) =>
      acceptSubmission(
        { tenantId: user.tenantId, keyDomain: user.domain, recipients, data, maxMessageBytes },
        { store, domains, clock, ...(options.planAdmission ? { planAdmission: options.planAdmission } : {}) },
      ),
    ...(options.limits ? { limits: options.limits } : {}),
  })
  const port = await smtp.listen(options.port, options.host)
  let tlsPort: number | undefined
  let http: SubmissionHttpServer | undefined
  try {
    if (options.tlsPort !== undefined) tlsPort = await smtp.listenTls(options.tlsPort, options.host)
    http = await startSubmissionHttpServer({
      host: options.host,
      port: options.httpPort,
      registry: metrics.registry,
      metricsToken: options.metricsToken,
      requireToken: options.requireMetricsToken ?? false,
      health: async () => {
        if (!smtp.listening()) return 'SMTP is not listening'
        await db.execute(sql`select 1`)
        return null
      },
    })
  } catch (error) {
    await smtp.close()
    throw error
  }
  const httpServer = http
  return {
    port,
    tlsPort,
    httpPort: httpServer.port,
    metrics,
    async close() {
      await smtp.close()
      await httpServer.close()
    },
  }
}
