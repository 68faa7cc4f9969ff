import type { Lane } from '@fairlane/core'
import { MESSAGE_PUBLISH_TOPIC } from '@fairlane/core'
import { type Database, messages, outbox, tenants } from '@fairlane/db'
import { notifyOutbox } from '@fairlane/db/queries/outbox'

/**
 * Test data written the way the API writes it (a queued message with rendered content and its outbox
 * row in one transaction, then NOTIFY), without depending on the web side's code.
 */

export async function createTenant(db: Database, name = 'Acme'): Promise<string> {
  const [row] = await db.insert(tenants).values({ name }).returning({ id: tenants.id })
  if (!row) throw new Error('tenant insert returned nothing')
  return row.id
}

export interface SeedMessage {
  id: string
  tenantId: string
  toAddress: string
  lane: Lane
}

export interface SeedOptions {
  tenantId: string
  lane?: Lane
  count?: number
  /** Recipient of the i-th message. */
  to?: (index: number) => string
  /** False: insert the messages without outbox rows (for sweeper tests). */
  publish?: boolean
  subject?: string
}

export async function seedQueuedMessages(db: Database, options: SeedOptions): Promise<SeedMessage[]> {
  const count = options.count ?? 1
  const lane = options.lane ?? 'critical'
  const to = options.to ?? ((index: number) => `user${index}@example.com`)
  const seeded: SeedMessage[] = []
  for (let start = 0; start < count; start += 500) {
    const size = Math.min(500, count - start)
    const rows = Array.from({ length: size }, (_, offset) => ({
      tenantId: options.tenantId,
      lane,
      status: 'queued' as const,
      template: 'otp',
      toAddress: to(start + offset),
      subject: options.subject ?? `Your code ${start + offset}`,
      html: `<p>Your code is <b>${100000 + start + offset}</b></p>`,
      text: `Your code is ${100000 + start + offset}`,
      queuedAt: new Date(),
    }))
    const inserted = await db.transaction(async (tx) => {
      const created = await tx
        .insert(messages)
        .values(rows)
        .returning({ id: messages.id, toAddress: messages.toAddress })
      if (options.publish !== false) {
        await tx.insert(outbox).values(
          created.map((row) => ({
            tenantId: options.tenantId,
            topic: MESSAGE_PUBLISH_TOPIC,
            payload: { v: 1, messageId: row.id, tenantId: options.tenantId, lane, generation: 0 },
          })),
        )
        await notifyOutbox(tx)
      }
      return created
    })
    seeded.push(...inserted.map((row) => ({ ...row, tenantId: options.tenantId, lane })))
  }
  return seeded
}
