import { randomUUID } from 'node:crypto'
import { buildReturnPath, type MessageStatus } from '@fairlane/core'
import { contacts, type Database, messages, sendingDomains, tenants } from '@fairlane/db'

/** Return paths in these tests are signed as the test worker signs them. */
export const TEST_SECRETS = ['inbound-test-return-path-secret-of-32-characters'] as const
export const TEST_BOUNCE_DOMAIN = 'bounces.fairlane.test'

export async function createTenant(db: Database, name = 'Acme'): Promise<string> {
  const [row] = await db.insert(tenants).values({ name }).returning({ id: tenants.id })
  if (!row) throw new Error('tenant insert returned nothing')
  return row.id
}

/** A sending domain row as far as return paths care: `fl-bounces.<name>` is its return-path host. */
export async function createDomain(db: Database, tenantId: string, name: string): Promise<string> {
  const [row] = await db
    .insert(sendingDomains)
    .values({
      tenantId,
      name,
      status: 'verified',
      returnPathLabel: 'fl-bounces',
      dkim: { active: null, pending: null, retired: [], activeFailedChecks: 0 },
    })
    .returning({ id: sendingDomains.id })
  if (!row) throw new Error('domain insert returned nothing')
  return row.id
}

export async function createContact(db: Database, tenantId: string, email: string): Promise<string> {
  const [row] = await db.insert(contacts).values({ tenantId, email }).returning({ id: contacts.id })
  if (!row) throw new Error('contact insert returned nothing')
  return row.id
}

/** A message as the worker leaves it: by default `sent` a moment ago. */
export async function createMessage(
  db: Database,
  input: {
    tenantId: string
    to: string
    status?: MessageStatus
    sentAt?: Date | null
    from?: string
    sendingDomainId?: string
    contactId?: string
  },
): Promise<string> {
  const status = input.status ?? 'sent'
  const [row] = await db
    .insert(messages)
    .values({
      tenantId: input.tenantId,
      lane: 'default',
      status,
      toAddress: input.to,
      subject: 'December news',
      text: 'Hello',
      queuedAt: new Date(),
      sentAt: input.sentAt === undefined ? (status === 'sent' ? new Date() : null) : input.sentAt,
      fromAddress: input.from ?? null,
      sendingDomainId: input.sendingDomainId ?? null,
      contactId: input.contactId ?? null,
    })
    .returning({ id: messages.id })
  if (!row) throw new Error('message insert returned nothing')
  return row.id
}

export function returnPathOf(messageId: string, host = TEST_BOUNCE_DOMAIN): string {
  return buildReturnPath({ messageId, host, secret: TEST_SECRETS[0] })
}

/** A unique recipient per test, so tests sharing a tenant never share an address's history. */
export function address(label: string): string {
  return `${label}-${randomUUID().slice(0, 8)}@example.net`
}
