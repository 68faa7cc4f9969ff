import type { APIRequestContext } from '@playwright/test'
import { E2E } from '../playwright.config'

/** One message as the mail sink's `GET /messages` serves it; header names are lowercased. */
export interface SinkMessage {
  id: string
  messageId: string | null
  from: string
  to: string
  subject: string
  text: string
  html: string | null
  headers: Record<string, string>
  receivedAt: string
  envelope: { from: string; to: string[] }
  /** The sink's DKIM verdict (SPF/DMARC for signed mail); see the README's mail sink section. */
  auth: {
    dkim: 'pass' | 'fail' | 'none'
    dkimDomain?: string
    dkimSelector?: string
    dkimReason?: string
    spf?: string
    spfDomain?: string
    dmarc?: string
    aligned?: boolean
  }
}

/** What the e2e mail sink received for one address, optionally only since an instant. */
export async function sinkMessages(
  request: APIRequestContext,
  filter: { to: string; since?: Date },
): Promise<SinkMessage[]> {
  const query = new URLSearchParams({ to: filter.to })
  if (filter.since) query.set('since', filter.since.toISOString())
  const response = await request.get(`${E2E.inboxUrl}/messages?${query}`)
  if (!response.ok()) throw new Error(`mail sink answered ${response.status()}: ${await response.text()}`)
  return (await response.json()) as SinkMessage[]
}

export interface SinkDnsRecord {
  type: 'TXT' | 'CNAME' | 'MX'
  name: string
  value: string
}

/**
 * Publishes a record on the DNS server the e2e mail sink runs: the launcher points web's and the
 * worker's DNS_SERVERS at it, so a domain whose records are published here verifies.
 */
export async function publishDnsRecord(request: APIRequestContext, record: SinkDnsRecord): Promise<void> {
  const response = await request.post(`${E2E.inboxUrl}/dns/records`, { data: record })
  if (response.status() !== 201)
    throw new Error(`mail sink answered ${response.status()}: ${await response.text()}`)
}

/** Removes the records of `name` (of `type`, when given) from the sink's DNS server. */
export async function removeDnsRecord(
  request: APIRequestContext,
  name: string,
  type?: SinkDnsRecord['type'],
): Promise<void> {
  const query = new URLSearchParams({ name, ...(type ? { type } : {}) })
  const response = await request.delete(`${E2E.inboxUrl}/dns/records?${query}`)
  if (response.status() !== 204)
    throw new Error(`mail sink answered ${response.status()}: ${await response.text()}`)
}
