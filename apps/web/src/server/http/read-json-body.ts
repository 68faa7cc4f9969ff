import { AppError } from '@fairlane/core/errors'

/**
 * Reads a JSON body, enforcing the media type and a byte limit while streaming: Content-Length is
 * checked first as a shortcut, but a client that lies about it (or sends chunked) is cut off at the
 * limit, so an oversize body never sits whole in memory.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  requireJsonMediaType(request.headers.get('content-type'))
  const bytes = await readBody(request, maxBytes)
  if (bytes.length === 0) throw new AppError('invalid_json', 'The request body is empty; send a JSON object')
  return parseJson(bytes)
}

/** As `readJsonBody`, with the body's size in bytes (a handler may hold parts of it to a smaller limit). */
export async function readSizedJsonBody(
  request: Request,
  maxBytes: number,
): Promise<{ body: unknown; sizeBytes: number }> {
  requireJsonMediaType(request.headers.get('content-type'))
  const bytes = await readBody(request, maxBytes)
  if (bytes.length === 0) throw new AppError('invalid_json', 'The request body is empty; send a JSON object')
  return { body: parseJson(bytes), sizeBytes: bytes.length }
}

/** For actions whose body is optional (`{ reason? }`): an absent or empty body reads as `{}`. */
export async function readOptionalJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const bytes = await readBody(request, maxBytes)
  if (bytes.length === 0) return {}
  requireJsonMediaType(request.headers.get('content-type'))
  return parseJson(bytes)
}

/** The body's bytes, at most `maxBytes` (413 past them, found while reading, not only from Content-Length). */
export async function readBody(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes)
  return readLimited(request.body, maxBytes)
}

function parseJson(bytes: Uint8Array): unknown {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new AppError('invalid_json', 'The request body is not valid UTF-8')
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new AppError('invalid_json', `The request body is not valid JSON: ${(error as Error).message}`)
  }
}

function requireJsonMediaType(contentType: string | null): void {
  const [mediaType = '', ...parameters] = (contentType ?? '')
    .split(';')
    .map((part) => part.trim().toLowerCase())
  const charset = parameters.find((parameter) => parameter.startsWith('charset='))?.slice('charset='.length)
  const utf8 = charset === undefined || charset === 'utf-8' || charset === '"utf-8"' || charset === 'utf8'
  if (mediaType !== 'application/json' || !utf8) {
    throw new AppError(
      'unsupported_media_type',
      `Content-Type must be application/json (got ${contentType === null ? 'none' : JSON.stringify(contentType)})`,
    )
  }
}

async function readLimited(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array> {
  if (body === null) return new Uint8Array()
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel().catch(() => {})
      throw tooLarge(maxBytes)
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return bytes
}

function tooLarge(maxBytes: number): AppError {
  return new AppError(
    'payload_too_large',
    `The request body is larger than ${Math.round(maxBytes / 1024)} KB`,
  )
}
