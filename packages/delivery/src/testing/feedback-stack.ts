import { createDatabase } from '@fairlane/db'
import { type Inbound, startInbound } from '@fairlane/inbound/start'
import { type MailSink, startMailSink } from '@fairlane/mailsink/sink'
import { TEST_BOUNCE_DOMAIN, TEST_UNSUBSCRIBE_SECRETS, testLogger } from './pipeline'

/**
 * The inbound server and a sink that reports bounces and complaints to it, started in the order each
 * needs the other's port; the worker (`startTestPipeline`) goes last, with this sink.
 */
export interface FeedbackStack {
  inbound: Inbound
  sink: MailSink
  close(): Promise<void>
}

export async function startFeedbackStack(databaseUrl: string): Promise<FeedbackStack> {
  const inboundDatabase = createDatabase(databaseUrl, { max: 5, applicationName: 'test-inbound' })
  const inbound = await startInbound({
    db: inboundDatabase.db,
    logger: testLogger(),
    host: '127.0.0.1',
    smtpPort: 0,
    httpPort: 0,
    // The worker signs return paths with the first unsubscribe secret; the inbound server verifies.
    secrets: TEST_UNSUBSCRIBE_SECRETS.map((key) => key.secret),
    bounceDomain: TEST_BOUNCE_DOMAIN,
    softBounceLimit: 3,
    settleIntervalMs: 200,
  })
  const sink = await startMailSink({
    host: '127.0.0.1',
    smtpPort: 0,
    httpPort: 0,
    maxMessages: 10_000,
    logger: testLogger(),
    inboundSmtpUrl: `smtp://127.0.0.1:${inbound.smtpPort}`,
  })
  return {
    inbound,
    sink,
    async close() {
      await sink.close()
      await inbound.close()
      await inboundDatabase.close()
    },
  }
}
