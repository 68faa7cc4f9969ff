import { connect, createServer, type Socket } from 'node:net'

export interface WireFreezer {
  port: number
  /** From now on, bytes from clients are dropped (replies still flow), on every connection, for good. */
  freeze(): void
  close(): Promise<void>
}

interface Pipe {
  client: Socket
  upstream: Socket
}

/**
 * A TCP proxy in front of the mail sink that can stop forwarding client bytes. Freezing before a
 * SIGKILL makes the kill land while sends are in flight but none sits between "the server stored it"
 * and "we recorded it": that window is the at-least-once gap no SMTP client can close (the bytes of a
 * dead client still reach the server), and a test that killed at a random instant would be
 * measuring luck instead of recovery. Frozen bytes are dropped, never forwarded later: the kill's
 * socket close can reach this proxy after the test saw the process exit, and a late flush would
 * deliver what the dead worker never knew was accepted.
 */
export async function startWireFreezer(targetPort: number): Promise<WireFreezer> {
  const pipes = new Set<Pipe>()
  let frozen = false
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1')
    const pipe: Pipe = { client, upstream }
    pipes.add(pipe)
    client.on('data', (chunk: Buffer) => {
      if (!frozen) upstream.write(chunk)
    })
    upstream.on('data', (chunk: Buffer) => client.write(chunk))
    const end = () => {
      pipes.delete(pipe)
      client.destroy()
      upstream.destroy()
    }
    client.on('close', end)
    upstream.on('close', end)
    client.on('error', end)
    upstream.on('error', end)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    port,
    freeze() {
      frozen = true
    },
    close() {
      for (const pipe of pipes) {
        pipe.client.destroy()
        pipe.upstream.destroy()
      }
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
