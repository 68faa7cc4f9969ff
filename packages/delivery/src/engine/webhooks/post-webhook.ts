import { type Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import { type Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import type { AttemptFailureKind, AttemptResult, WebhookHeaders } from '@fairlane/core'
import { FORBIDDEN_ADDRESS_CODE, literalAddressProblem, safeLookup } from './safe-lookup'

/** What is kept of a response's body (for the delivery log); past it the socket is dropped. */
export const RESPONSE_EXCERPT_BYTES = 4096

export interface WebhookAgents {
  http: HttpAgent
  https: HttpsAgent
}

export interface PostWebhookInput {
  url: string
  body: string
  headers: WebhookHeaders
  /** The whole attempt: connect, TLS, headers and body. */
  timeoutMs: number
  /** WEBHOOK_ALLOW_PRIVATE: plain http and private addresses allowed (development and tests). */
  allowPrivate: boolean
  agents: WebhookAgents
}

/**
 * One webhook request. Never throws and never outlives `timeoutMs`: every way it can go wrong (no
 * answer, a refused or reset connection, a TLS error, a redirect, which is never followed, a non-2xx
 * status, a body past 4 KB or never finished) is a failed attempt with a reason a tenant can act on.
 */
export function postWebhook(input: PostWebhookInput): Promise<AttemptResult> {
  const startedAt = performance.now()
  const elapsed = () => Math.round(performance.now() - startedAt)
  return new Promise((resolve) => {
    const fail = (
      kind: AttemptFailureKind,
      error: string,
      extra: { statusCode?: number; excerpt?: string } = {},
    ) => finish({ ok: false, kind, error, ...extra, durationMs: elapsed() })
    let settled = false
    let timer: NodeJS.Timeout | undefined
    function finish(result: AttemptResult) {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(result)
    }
    const url = parseUrl(input)
    if (typeof url === 'string') return fail('forbidden-address', url)
    timer = setTimeout(() => {
      fail('timeout', `no complete answer within ${input.timeoutMs} ms`)
      request.destroy()
    }, input.timeoutMs)
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest
    const request = send(url, {
      method: 'POST',
      agent: url.protocol === 'https:' ? input.agents.https : input.agents.http,
      ...(input.allowPrivate ? {} : { lookup: safeLookup }),
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(input.body),
        'user-agent': 'Fairlane-Webhooks/1',
        ...input.headers,
      },
    })
    request.on('error', (error: NodeJS.ErrnoException) => {
      const [kind, reason] = classifyError(error)
      fail(kind, reason)
    })
    request.on('response', (response) => {
      // A body cut short (by the endpoint, or by us past 4 KB) errors the response: after the
      // attempt settled that is a no-op, before it a connection failure.
      response.on('error', (error: NodeJS.ErrnoException) =>
        fail('connection', `response failed: ${error.message}`),
      )
      readExcerpt(response, (excerpt, complete) => {
        if (!complete) request.destroy()
        const judged = judgeResponse(response, complete)
        if (judged === 'ok')
          finish({ ok: true, statusCode: response.statusCode ?? 0, excerpt, durationMs: elapsed() })
        else fail(judged.kind, judged.error, { statusCode: response.statusCode ?? 0, excerpt })
      })
    })
    request.end(input.body)
  })
}

/** A 2xx whose body ended within 4 KB is a success; a redirect is never followed. */
function judgeResponse(
  response: IncomingMessage,
  complete: boolean,
): 'ok' | { kind: AttemptFailureKind; error: string } {
  const statusCode = response.statusCode ?? 0
  if (!complete) {
    return {
      kind: 'body-too-large',
      error: `HTTP ${statusCode} with a body over ${RESPONSE_EXCERPT_BYTES} bytes (not read further)`,
    }
  }
  if (statusCode >= 200 && statusCode < 300) return 'ok'
  if (statusCode >= 300 && statusCode < 400) {
    const location = response.headers.location
    return {
      kind: 'redirect',
      error: `HTTP ${statusCode} redirect${location ? ` to ${location}` : ''} not followed`,
    }
  }
  return { kind: 'status', error: `HTTP ${statusCode}` }
}

/** Reads up to 4 KB; `complete` is false when there was more (the caller drops the socket). */
function readExcerpt(response: IncomingMessage, done: (excerpt: string, complete: boolean) => void): void {
  const chunks: Buffer[] = []
  let size = 0
  let over = false
  response.on('data', (chunk: Buffer) => {
    if (over) return
    const room = RESPONSE_EXCERPT_BYTES - size
    chunks.push(chunk.subarray(0, Math.max(0, room)))
    size += chunk.length
    if (size > RESPONSE_EXCERPT_BYTES) {
      over = true
      response.pause()
      done(Buffer.concat(chunks).toString('utf8'), false)
    }
  })
  response.on('end', () => {
    if (!over) done(Buffer.concat(chunks).toString('utf8'), true)
  })
}

function parseUrl(input: PostWebhookInput): URL | string {
  let url: URL
  try {
    url = new URL(input.url)
  } catch {
    return 'the endpoint URL cannot be parsed'
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && input.allowPrivate)) {
    return `${url.protocol} URLs are refused: webhooks go over https`
  }
  if (input.allowPrivate) return url
  const problem = literalAddressProblem(url.hostname)
  return problem ? `${url.hostname}: ${problem}` : url
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ETIMEDOUT',
])

function classifyError(error: NodeJS.ErrnoException): [AttemptFailureKind, string] {
  const code = error.code ?? ''
  if (code === FORBIDDEN_ADDRESS_CODE) return ['forbidden-address', error.message]
  if (
    code.startsWith('ERR_TLS') ||
    code.startsWith('ERR_SSL') ||
    /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|^EPROTO$/.test(code)
  ) {
    return ['tls', `TLS error: ${error.message}${code ? ` (${code})` : ''}`]
  }
  if (CONNECTION_CODES.has(code)) return ['connection', `connection failed: ${error.message}`]
  return ['connection', `request failed: ${error.message}${code ? ` (${code})` : ''}`]
}
