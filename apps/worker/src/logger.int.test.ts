import { randomUUID } from 'node:crypto'
import { Writable } from 'node:stream'
import { createDatabase, type DatabaseHandle } from '@fairlane/db'
import { insertQueuedMessage } from '@fairlane/db/queries/accept-message'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from './logger'

/** A real failing accept insert, logged the ways the code logs errors: no parameter reaches the line. */
const test = setupTestEnvironment('log-errors')
let database: DatabaseHandle

beforeAll(() => {
  database = createDatabase(test.databaseUrl, { max: 2 })
})
afterAll(async () => {
  await database?.close()
})

function collectingLogger() {
  const lines: string[] = []
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString())
      done()
    },
  })
  return { logger: createLogger('info', destination), lines }
}

describe('worker logger', () => {
  it('logs a failed insert with its code and statement, never the recipient nor the OTP code', async () => {
    const recipient = 'carol.secret@example.com'
    const otp = '739184'
    const id = randomUUID()
    const tenantId = randomUUID() // no such tenant: the insert fails on the foreign key
    const failure = await insertQueuedMessage(
      database.db,
      {
        id,
        tenantId,
        lane: 'critical',
        toAddress: recipient,
        subject: `Your code is ${otp}`,
        html: null,
        text: `Your code is ${otp}`,
        template: 'otp',
        variables: { code: otp },
        idempotencyKey: null,
        requestHash: 'hash',
        queuedAt: new Date(),
      },
      { v: 1, messageId: id, tenantId, lane: 'critical', generation: 0 },
    ).catch((caught: unknown) => caught)
    expect(failure).toBeInstanceOf(Error)
    // What drizzle would otherwise hand to the log:
    expect(String((failure as Error).message)).toContain(otp)

    const { logger, lines } = collectingLogger()
    logger.error({ err: failure }, 'accept failed')
    logger.error({ err: (failure as Error).message }, 'accept failed (message only)')
    logger.error(failure as Error, 'accept failed (error first)')
    logger.error({ error: failure }, 'accept failed (error key)')
    expect(lines).toHaveLength(4)
    for (const line of lines) {
      expect(line).not.toContain(otp)
      expect(line).not.toContain(recipient)
      expect(line).not.toContain('carol.secret')
    }
    const logged = JSON.parse(lines[0] ?? '{}')
    expect(logged.err.statement).toBe('insert into "messages"')
    expect(JSON.stringify(logged.err)).toContain('"code":"23503"')
  })
})
