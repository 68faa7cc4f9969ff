import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { apiKeyPrefix, generateApiKey, hashApiKey } from '@fairlane/core'
import type { LanePlan } from '@fairlane/core/accept'
import { createTenantPlanCache } from '@fairlane/core/accept'
import { createDatabase, type Database, type DatabaseHandle, sendingDomains, tenants } from '@fairlane/db'
import { createApiKey } from '@fairlane/db/queries/api-keys'
import { findTenantAdmissionPlan } from '@fairlane/db/queries/usage'
import { acceptPlanOf, createAcceptBuckets, type RedisClient } from '@fairlane/queue'
import { ensureSelfSignedCert } from '@fairlane/stack'
import { connectTestRedis, setupTestEnvironment } from '@fairlane/testing'
import pino from 'pino'
import { afterAll, beforeAll } from 'vitest'
import type { SubmissionLimits } from '../smtp-server'
import { type Submission, startSubmission } from '../start-submission'

export interface SubmissionHarness {
  db: Database
  submission: Submission
  /** The self-signed certificate the server presents (clients pin it as their CA). */
  cert: Buffer
}

/** One certificate for every test file of this process: openssl takes a moment. */
let certDir: string | undefined
function testCert(): { certPath: string; keyPath: string } {
  certDir ??= mkdtempSync(join(tmpdir(), 'fairlane-submission-tls-'))
  return ensureSelfSignedCert(certDir, 'localhost')
}

/**
 * An integration test file's submission server: its own migrated database and Redis key prefix, the
 * server started in this process on free ports with a self-signed certificate (STARTTLS and implicit
 * TLS), the plan's accept buckets on the test Redis. Read the fields inside tests.
 */
export function setupSubmission(
  options: {
    limits?: Partial<SubmissionLimits>
    plan?: LanePlan
    authThrottle?: { maxFailures: number; windowMs: number }
    allowPlaintextAuth?: boolean
  } = {},
) {
  const environment = setupTestEnvironment('submission')
  const harness = {} as SubmissionHarness
  let handle: DatabaseHandle | undefined
  let redis: RedisClient | undefined
  beforeAll(async () => {
    handle = createDatabase(environment.databaseUrl, { max: 5, applicationName: 'submission-test' })
    harness.db = handle.db
    redis = connectTestRedis(environment)
    const { certPath, keyPath } = testCert()
    harness.cert = readFileSync(certPath)
    const plan = options.plan ?? { ratePerSec: 1000, burst: 1000 }
    harness.submission = await startSubmission({
      db: handle.db,
      logger: pino({ level: 'silent' }),
      host: '127.0.0.1',
      hostName: 'localhost',
      port: 0,
      tlsPort: 0,
      httpPort: 0,
      tls: { cert: harness.cert, key: readFileSync(keyPath) },
      allowPlaintextAuth: options.allowPlaintextAuth ?? false,
      planAdmission: {
        plan: acceptPlanOf({
          TRANSACTIONAL_RATE_PER_SEC: plan.ratePerSec,
          TRANSACTIONAL_BURST: plan.burst,
          ACCEPT_HORIZON_MS: { critical: 1_000, default: 1_000 },
        }),
        buckets: createAcceptBuckets({ redis, keyPrefix: `${environment.queuePrefix}:rl` }),
        tenantPlans: createTenantPlanCache({
          load: (tenantId) => findTenantAdmissionPlan(harness.db, { tenantId }),
        }),
      },
      authThrottle: options.authThrottle ?? { maxFailures: 5, windowMs: 60_000 },
      keyCacheMs: 200,
      limits: { maxMessageBytes: 64 * 1024, socketTimeoutMs: 5_000, ...options.limits },
    })
  })
  afterAll(async () => {
    await harness.submission?.close()
    await handle?.close()
    redis?.disconnect()
  })
  return harness
}

export async function createTenant(db: Database, name: string): Promise<string> {
  const [row] = await db.insert(tenants).values({ name }).returning({ id: tenants.id })
  if (!row) throw new Error('tenant insert returned nothing')
  return row.id
}

export async function createDomain(
  db: Database,
  tenantId: string,
  name: string,
  status: 'verified' | 'pending' = 'verified',
): Promise<string> {
  const [row] = await db
    .insert(sendingDomains)
    .values({
      tenantId,
      name,
      status,
      returnPathLabel: 'fl-bounces',
      dkim: { active: null, pending: null, retired: [], activeFailedChecks: 0 },
    })
    .returning({ id: sendingDomains.id })
  if (!row) throw new Error('domain insert returned nothing')
  return row.id
}

/** A live API key of the tenant: the SMTP password. */
export async function createKey(
  db: Database,
  tenantId: string,
  options: { scope?: 'full' | 'sending'; domain?: string } = {},
): Promise<{ key: string; id: string }> {
  const key = generateApiKey()
  const { id } = await createApiKey(db, {
    tenantId,
    name: 'smtp',
    prefix: apiKeyPrefix(key),
    keyHash: hashApiKey(key),
    scope: options.scope ?? 'sending',
    ...(options.domain ? { domain: options.domain } : {}),
  })
  return { key, id }
}
