import type { IncomingMessage, ServerResponse } from 'node:http'

/**
 * Between Node's `http` objects and the Web `Request`/`Response` the handlers take and return, with
 * as little in between as possible: headers copied once, the body streamed (the entry has already
 * capped it, http/body-limits.ts; the handlers' own, smaller limits still cut a client off), the
 * answer written with its status and every header it carries.
 */

/** After a handler stopped reading, at most this much more of a body is read (and dropped) before the connection is cut. */
const DISCARD_LIMIT_BYTES = 1024 * 1024

export function toWebRequest(req: IncomingMessage, origin: string): Request {
  const method = req.method ?? 'GET'
  const headers = new Headers()
  const raw = req.rawHeaders
  for (let index = 0; index < raw.length; index += 2)
    headers.append(raw[index] as string, raw[index + 1] as string)
  const body = method === 'GET' || method === 'HEAD' || !hasBody(req) ? null : bodyOf(req)
  return new Request(`${origin}${req.url ?? '/'}`, {
    method,
    headers,
    body,
    // Required by the fetch spec for a streamed request body.
    duplex: 'half',
  } as RequestInit & { duplex: 'half' })
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length']
  if (length !== undefined) return length !== '0'
  return req.headers['transfer-encoding'] !== undefined
}

/**
 * A pull stream over the request: nothing is read until the handler reads, one chunk per read, and
 * Node's own buffering applies backpressure. A handler that stops early (the 64 KB limit) cancels
 * it, and the rest of the body is drained up to DISCARD_LIMIT_BYTES so the connection can carry the
 * answer and be reused.
 */
function bodyOf(req: IncomingMessage): ReadableStream<Uint8Array> {
  let started = false
  let settled = false
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (started) {
          req.resume()
          return
        }
        started = true
        req.on('data', (chunk: Buffer) => {
          if (settled) return
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
          if ((controller.desiredSize ?? 0) <= 0) req.pause()
        })
        req.once('end', () => {
          if (settled) return
          settled = true
          controller.close()
        })
        const fail = (error: Error) => {
          if (settled) return
          settled = true
          controller.error(error)
        }
        req.once('error', fail)
        req.once('close', () => {
          if (!req.complete) fail(new Error('the client closed the connection before the request body ended'))
        })
      },
      cancel() {
        settled = true
        discardRest(req)
      },
    },
    { highWaterMark: 0 },
  )
}

/** Drains what is left of a request body, cutting the connection if a client keeps sending. */
const discarding = new WeakSet<IncomingMessage>()

export function discardRest(req: IncomingMessage): void {
  if (req.complete || req.destroyed || discarding.has(req)) return
  discarding.add(req)
  let dropped = 0
  req.removeAllListeners('data')
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.byteLength
    if (dropped > DISCARD_LIMIT_BYTES) req.socket.destroy()
  })
  req.resume()
}

/** Writes a Web Response: status, every header (each Set-Cookie on its own), the body with its length. */
export async function sendWebResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
): Promise<void> {
  if (res.headersSent) return
  const headers: Record<string, string | string[]> = {}
  for (const [name, value] of response.headers) {
    if (name !== 'set-cookie') headers[name] = value
  }
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) headers['set-cookie'] = cookies
  const body = response.body === null ? null : Buffer.from(await response.arrayBuffer())
  if (body !== null) headers['content-length'] = String(body.byteLength)
  // The handler answered without reading the whole body (413, 401 before reading): drop the rest.
  if (!req.complete) discardRest(req)
  res.writeHead(response.status, headers)
  res.end(body ?? undefined)
}
