import type { IncomingMessage, ServerResponse } from 'node:http'

/** The most a request body may carry; a fault definition is a few hundred bytes. */
export const MAX_BODY_BYTES = 64 * 1024

/**
 * A client mistake with the status and machine-readable code to answer it with. Anything thrown
 * that is not an HttpError is the sink's own bug and becomes a logged 500.
 */
export class HttpError extends Error {
  override readonly name = 'HttpError'
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    /** The request field at fault, answered as `details: [{ path, message }]` like the platform's API. */
    readonly field?: string,
  ) {
    super(message)
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const payload = JSON.stringify(body)
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(payload)),
    // Test scripts poll these endpoints; a cached answer would hide the message they wait for.
    'cache-control': 'no-store',
  })
  res.end(payload)
}

export function sendError(res: ServerResponse, error: HttpError): void {
  const details = error.field ? { details: [{ path: error.field, message: error.message }] } : {}
  sendJson(
    res,
    error.status,
    { error: { code: error.code, message: error.message, ...details } },
    error.headers,
  )
}

export function sendNoContent(res: ServerResponse): void {
  res.writeHead(204, { 'cache-control': 'no-store' })
  res.end()
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': String(Buffer.byteLength(html)),
    'cache-control': 'no-store',
    // Message HTML is shown in a sandboxed srcdoc iframe, which inherits this policy: no scripts
    // anywhere, inline styles allowed because real emails depend on them.
    'content-security-policy':
      "default-src 'none'; style-src 'unsafe-inline'; img-src * data:; frame-src 'self'; base-uri 'none'; form-action 'none'",
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  })
  res.end(html)
}

/**
 * Reads a JSON request body of at most MAX_BODY_BYTES. Listens to events rather than iterating the
 * request, because leaving a `for await` early destroys the socket and the client would get a reset
 * instead of the 413 that explains it.
 */
export function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const type = req.headers['content-type'] ?? ''
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    return Promise.reject(
      new HttpError(
        415,
        'unsupported_media_type',
        `expected Content-Type: application/json, got ${type ? `"${type}"` : 'none'}`,
      ),
    )
  }
  const tooLarge = () =>
    // Connection: close, so the unread rest of the body is not taken for the next request.
    new HttpError(413, 'payload_too_large', `the request body is limited to ${MAX_BODY_BYTES} bytes`, {
      connection: 'close',
    })
  if (Number(req.headers['content-length']) > MAX_BODY_BYTES) return Promise.reject(tooLarge())

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        req.off('data', onData)
        req.off('end', onEnd)
        // Keep draining so the socket is not stuck with unread bytes while the 413 goes out.
        req.resume()
        reject(tooLarge())
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      const text = Buffer.concat(chunks).toString('utf8')
      if (text.trim() === '') {
        reject(new HttpError(400, 'invalid_json', 'the request body is empty; expected a JSON object'))
        return
      }
      try {
        resolve(JSON.parse(text))
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error)
        reject(new HttpError(400, 'invalid_json', `the request body is not valid JSON: ${detail}`))
      }
    }
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', reject)
  })
}
