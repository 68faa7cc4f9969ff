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
