import { IncomingMessage, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { API_ROUTES } from '../api/catalog'
import { createPathIndex } from '../fast-path/router'
import { BODY_LIMITS, type BodyClass } from './body-limit-classes'

/**
 * Every request body the web process reads is capped by the web entry, per class of route, before
 * any handler or Next.js sees a byte of it:
 * - a `Content-Length` over the cap is answered 413 at once, nothing read (Node's parser never
 *   delivers more than the declared length, so a body within it stays within the cap);
 * - a body without one (chunked) is counted as it arrives and cut at the cap with a 413.
 * Handlers keep their own, often smaller, limits (64 KB for one message); these are the outer
 * bound, so an anonymous client can make the process hold at most this much per request.
 * Each route of the table names its class in the route catalog (`bodyLimit`, `api/catalog/`); the
 * pages' paths are classed here.
 */
export { BODY_LIMITS, type BodyClass, messageBodyLimit } from './body-limit-classes'

export interface BodyLimit {
  class: BodyClass
  maxBytes: number
}

/** The cap for a request path (the query is ignored). */
export function bodyLimitOf(url: string): BodyLimit {
  const queryAt = url.indexOf('?')
  const path = queryAt === -1 ? url : url.slice(0, queryAt)
  const bodyClass = bodyClassOf(path)
  return { class: bodyClass, maxBytes: BODY_LIMITS[bodyClass] }
}

// Built on first use: the catalog's handlers import this module (a route's own cap), so the table is
// not there yet while this module loads.
let routesAt: ReturnType<typeof createPathIndex> | null = null

function bodyClassOf(path: string): BodyClass {
  routesAt ??= createPathIndex(Object.values(API_ROUTES))
  const routes = routesAt(path)
  if (routes !== null && routes.length > 0) return largestClass(routes.map((route) => route.bodyLimit))
  // Outside the route table: an /api path no route has (answered 404 or 405), the pages.
  if (path.startsWith('/api/auth/')) return 'auth'
  if (path === '/api' || path.startsWith('/api/')) return 'api'
  if (path === '/contacts/import/rows') return 'contactsImport'
  if (path === '/suppressions/import') return 'suppressionsImport'
  if (path.startsWith('/u/')) return 'unsubscribe'
  return 'pages'
}

/**
 * Routes of several methods may share a path (`POST /api/v1/suppressions/import` and `DELETE
 * /api/v1/suppressions/:email`): the path takes the largest of their caps, so a body a route may
 * take is never refused because another route matches the path too.
 */
function largestClass(classes: BodyClass[]): BodyClass {
  return classes.reduce((largest, bodyClass) =>
    BODY_LIMITS[bodyClass] > BODY_LIMITS[largest] ? bodyClass : largest,
  )
}

/** `Content-Length` as a number; null without one; NaN when it is not a plain decimal. */
export function declaredLength(req: IncomingMessage): number | null {
  const header = req.headers['content-length']
  if (header === undefined) return null
  return /^\d+$/.test(header) ? Number(header) : Number.NaN
}

/** A body is coming that no `Content-Length` bounds: chunked transfer coding. */
export function hasUnboundedBody(req: IncomingMessage): boolean {
  return req.headers['content-length'] === undefined && req.headers['transfer-encoding'] !== undefined
}

/** How long the rest of a refused body is read (and dropped) so the client can read its 413. */
export const REFUSED_BODY_LINGER_MS = 1_000

/**
 * The 413 every route gives, in the API's error shape, and a lingering close. Node destroys the
 * socket as soon as such an answer is written, and a client still writing its body then meets a
 * reset before it has read the answer (Node's client and curl report EPIPE and drop it). So this
 * socket only half-closes when Node asks; the rest of the body is read and dropped (never kept)
 * until the client stops or REFUSED_BODY_LINGER_MS passes, then the socket is destroyed.
 */
export function answerPayloadTooLarge(res: ServerResponse, limit: BodyLimit): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  const body = JSON.stringify({
    error: {
      code: 'payload_too_large',
      message: `The request body is larger than ${formatBytes(limit.maxBytes)}, the limit for this route`,
      details: { limitBytes: limit.maxBytes },
    },
  })
  const { req, socket } = res
  if (!req.complete && socket !== null) lingerOnClose(socket)
  res.writeHead(413, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    connection: 'close',
  })
  res.end(body)
}

function lingerOnClose(socket: Socket): void {
  socket.destroySoon = () => {
    socket.end()
    const cut = setTimeout(() => socket.destroy(), REFUSED_BODY_LINGER_MS)
    cut.unref()
    socket.once('end', () => socket.destroy())
    socket.once('close', () => clearTimeout(cut))
  }
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`
  return `${Math.round(bytes / 1024)} KB`
}

type HoldOutcome = 'received' | 'too-large' | 'aborted'

/**
 * The web server's request class (`createServer({ IncomingMessage: CappedRequest })`). Node's HTTP
 * parser hands each piece of a body to `push`; overriding it is the one place every byte passes
 * before anything can read it. By default it passes everything on; `holdBody` makes it keep a
 * chunked body back, counted, until it has all arrived within the cap — only then does the stream
 * see it — or drop it and stop reading the socket once it is over.
 */
export class CappedRequest extends IncomingMessage {
  #held: Buffer[] | undefined
  #heldBytes = 0
  #maxBytes = 0
  #settle: ((outcome: HoldOutcome) => void) | undefined
  #dropping = false

  /**
   * Resolves `received` once the whole body is in (the stream then replays it), `too-large` as soon
   * as it passes `maxBytes` (everything held is dropped, and the socket stops being read), or
   * `aborted` if the client goes away first.
   */
  holdBody(maxBytes: number): Promise<HoldOutcome> {
    this.#held = []
    this.#maxBytes = maxBytes
    return new Promise<HoldOutcome>((resolve) => {
      this.#settle = (outcome) => {
        this.#settle = undefined
        resolve(outcome)
      }
      this.once('close', () => this.#settle?.('aborted'))
    })
  }

  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (this.#dropping) return false // false: the parser stops reading the socket
    if (this.#held === undefined) return super.push(chunk, encoding)
    if (chunk === null) {
      const held = this.#held
      this.#held = undefined
      for (const piece of held) super.push(piece)
      const ended = super.push(null)
      this.#settle?.('received')
      return ended
    }
    const piece = chunk as Buffer
    this.#heldBytes += piece.byteLength
    if (this.#heldBytes > this.#maxBytes) {
      this.#held = undefined
      this.#dropping = true
      this.#settle?.('too-large')
      return false
    }
    this.#held.push(piece)
    return true
  }
}
