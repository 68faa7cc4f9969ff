import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders
  body: string
  /** The status this receiver answered it with (0: none, it hangs). */
  answered: number
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hooks`: allowed because the e2e platform runs with WEBHOOK_ALLOW_PRIVATE=true. */
  url: string
  received: ReceivedWebhook[]
  close(): Promise<void>
}

/**
 * A tenant's webhook receiver for a test: records every request and answers `failFirst` of them 500
 * (the rest 200), so a test can watch a failed attempt and a replay that succeeds. `hang` never
 * answers: the attempt stays in flight (its delivery pending) until WEBHOOK_TIMEOUT_MS.
 */
export async function startWebhookReceiver(
  options: { failFirst?: number; hang?: boolean } = {},
): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      if (options.hang) {
        received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), answered: 0 })
        return
      }
      const answered = received.length < (options.failFirst ?? 0) ? 500 : 200
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), answered })
      response.writeHead(answered, { 'content-type': 'text/plain' })
      response.end(answered === 500 ? 'receiver down for the test' : 'ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        // Hanging requests would keep close() waiting for ever.
        server.closeAllConnections()
      }),
  }
}
