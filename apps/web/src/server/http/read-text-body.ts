import { AppError } from '@fairlane/core/errors'
import { readBody } from './read-json-body'

/**
 * Reads a text body of one of `mediaTypes` (`text/csv`), UTF-8, at most `maxBytes` while streaming.
 * Requiring a type a plain HTML form cannot send is also what keeps a cross-site form from posting
 * one with a visitor's cookie (it would need a CORS preflight).
 */
export async function readTextBody(
  request: Request,
  options: { maxBytes: number; mediaTypes: readonly string[] },
): Promise<string> {
  const contentType = request.headers.get('content-type')
  const [mediaType = '', ...parameters] = (contentType ?? '')
    .split(';')
    .map((part) => part.trim().toLowerCase())
  const charset = parameters.find((parameter) => parameter.startsWith('charset='))?.slice('charset='.length)
  const utf8 = charset === undefined || ['utf-8', '"utf-8"', 'utf8'].includes(charset)
  if (!options.mediaTypes.includes(mediaType) || !utf8) {
    throw new AppError(
      'unsupported_media_type',
      `Content-Type must be ${options.mediaTypes.join(' or ')} in UTF-8 (got ${contentType === null ? 'none' : JSON.stringify(contentType)})`,
    )
  }
  const bytes = await readBody(request, options.maxBytes)
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new AppError('validation_failed', 'The request body is not valid UTF-8', {
      details: [{ path: 'body', message: 'is not valid UTF-8: save the file as UTF-8 and send it again' }],
    })
  }
}
