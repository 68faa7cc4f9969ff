import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { generateWebhookSecret, type WebhookEventType } from '@fairlane/core'
import { type Database, webhookEndpoints } from '@fairlane/db'
import { sql } from 'drizzle-orm'

/** A webhook receiver of the test's own: records every request, answers as `respond` says. */
export interface ReceivedWebhook {
  id: string
  body: string
  headers: Record<string, string>
  receivedAtMs: number
  /** Requests this receiver had in progress (received, connection not yet done) when this one came. */
  othersInProgress: number
  /** When its exchange ended: answered, or dropped by the client (absent while in progress). */
  endedAtMs?: number
  /** Set once the receiver answered it (absent while it hangs). */
  answeredWith?: number
}

export type Respond = (request: ReceivedWebhook, response: ServerResponse) => void

export interface TestReceiver {
  url: string
  received: ReceivedWebhook[]
  respond: Respond
  close(): Promise<void>
}

export const answer =
  (status: number, body = ''): Respond =>
  (request, response) => {
    request.answeredWith = status
    response.writeHead(status, { 'content-type': 'text/plain' }).end(body)
  }

/** Answers `status` after `delayMs`: a receiver that does its work before it answers. */
export const answerAfter =
  (delayMs: number, status = 200): Respond =>
  (request, response) => {
    setTimeout(() => answer(status, 'ok')(request, response), delayMs)
  }

/**
 * The most requests in progress at once over these receivers together (one tenant's endpoints):
 * each request counts from its arrival until its exchange ended (still running counts to now).
 */
export function mostAtOnce(requests: readonly ReceivedWebhook[]): number {
  const edges = requests.flatMap((request) => [
    { atMs: request.receivedAtMs, step: 1 },
    { atMs: request.endedAtMs ?? Number.POSITIVE_INFINITY, step: -1 },
  ])
  // At the same instant an end comes before an arrival: a slot handed over is not two at once.
  edges.sort((x, y) => x.atMs - y.atMs || x.step - y.step)
  let now = 0
  let most = 0
  for (const edge of edges) {
    now += edge.step
    most = Math.max(most, now)
  }
  return most
}

/** Never answers: the request hangs until the client gives up. */
export const hang: Respond = () => {}

export async function startReceiver(respond: Respond = answer(200, 'ok')): Promise<TestReceiver> {
  const received: ReceivedWebhook[] = []
  const receiver: TestReceiver = { url: '', received, respond, close: async () => {} }
  let inProgress = 0
  const server: Server = createServer((request: IncomingMessage, response) => {
    const othersInProgress = inProgress
    inProgress += 1
    let entry: ReceivedWebhook | undefined
    response.on('close', () => {
      inProgress -= 1
      if (entry) entry.endedAtMs = Date.now()
    })
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
      )
      entry = {
        id: headers['webhook-id'] ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
        headers,
        receivedAtMs: Date.now(),
        othersInProgress,
      }
      received.push(entry)
      receiver.respond(entry, response)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return receiver
}

export async function createEndpoint(
  db: Database,
  input: { tenantId: string; url: string; events: WebhookEventType[]; secret?: string },
): Promise<{ id: string; secret: string }> {
  const secret = input.secret ?? generateWebhookSecret()
  const [row] = await db
    .insert(webhookEndpoints)
    .values({ tenantId: input.tenantId, url: input.url, events: input.events, secret })
    .returning({ id: webhookEndpoints.id })
  if (!row) throw new Error('no endpoint')
  return { id: row.id, secret }
}

/**
 * `count` sent messages of the tenant with their `sent` events, written as mark-sent writes them (one
 * statement per batch): the trigger turns each into deliveries. Returns each event's time by message.
 */
export async function writeSentEvents(
  db: Database,
  input: { tenantId: string; count: number; batch?: number },
): Promise<Map<string, number>> {
  const at = new Map<string, number>()
  const batch = input.batch ?? 500
  for (let start = 0; start < input.count; start += batch) {
    const size = Math.min(batch, input.count - start)
    const rows = await db.execute<{ id: string; at: Date | string }>(sql`
      with m as (
        insert into messages (tenant_id, lane, status, to_address, subject, text, sent_at)
        select ${input.tenantId}, 'default', 'sent', 'reader-' || g || '@example.com', 'Hi', 'Hi', now()
        from generate_series(1, ${size}) g
        returning id, tenant_id)
      insert into message_events (tenant_id, message_id, type, detail)
      select tenant_id, id, 'sent', '{"response":"250 ok"}'::jsonb from m
      returning message_id as id, at`)
    for (const row of rows) at.set(row.id, new Date(row.at).getTime())
  }
  return at
}
