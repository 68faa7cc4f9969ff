import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A tenant's webhook endpoint for the benchmark: records each request, answers or hangs as told. */
export interface BenchReceiver {
  url: string
  /** Requests that got a 2xx, by webhook-id, with when they arrived and the message they were about. */
  answered: { id: string; messageId: string; atMs: number }[]
  /** Every request, hanging ones included. */
  requests: number
  hanging: boolean
  close(): Promise<void>
}

export async function startBenchReceiver(hanging: boolean): Promise<BenchReceiver> {
  const held: ServerResponse[] = []
  const receiver: BenchReceiver = { url: '', answered: [], requests: 0, hanging, close: async () => {} }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      receiver.requests += 1
      // Hanging: never answered (the worker gives up at its timeout and drops the socket).
      if (receiver.hanging) return void held.push(response)
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { messageId: string } }
      receiver.answered.push({
        id: String(request.headers['webhook-id']),
        messageId: body.data.messageId,
        atMs: Date.now(),
      })
      response.writeHead(204).end()
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
