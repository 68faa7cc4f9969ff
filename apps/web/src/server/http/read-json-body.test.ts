import { AppError } from '@fairlane/core/errors'
import { describe, expect, it } from 'vitest'
import { readJsonBody, readOptionalJsonBody } from './read-json-body'

const request = (
  body: BodyInit | null,
  headers: Record<string, string> = { 'content-type': 'application/json' },
) =>
  new Request('http://localhost/x', {
    method: 'POST',
    body,
    headers,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit)

async function codeOf(work: Promise<unknown>): Promise<string> {
  try {
    await work
  } catch (error) {
    if (error instanceof AppError) return error.code
    throw error
  }
  return 'ok'
}

/** A body that arrives in chunks with no Content-Length, as a chunked upload does. */
function chunked(chunks: number, size: number): ReadableStream<Uint8Array> {
  let sent = 0
  return new ReadableStream({
    pull(controller) {
      if (sent++ >= chunks) controller.close()
      else controller.enqueue(new Uint8Array(size).fill(0x20))
    },
  })
}

describe('reading a JSON body', () => {
  it('parses JSON with or without a UTF-8 charset', async () => {
    expect(await readJsonBody(request('{"a":1}'), 100)).toEqual({ a: 1 })
    expect(
      await readJsonBody(request('{"a":1}', { 'content-type': 'Application/JSON; charset=UTF-8' }), 100),
    ).toEqual({ a: 1 })
  })

  it.each([
    ['text/plain', 'unsupported_media_type'],
    ['application/jsonx', 'unsupported_media_type'],
    ['application/json; charset=iso-8859-1', 'unsupported_media_type'],
  ])('refuses Content-Type %s', async (type, code) => {
    expect(await codeOf(readJsonBody(request('{}', { 'content-type': type }), 100))).toBe(code)
  })

  it('refuses malformed JSON, an empty body and invalid UTF-8', async () => {
    expect(await codeOf(readJsonBody(request('{'), 100))).toBe('invalid_json')
    expect(await codeOf(readJsonBody(request(''), 100))).toBe('invalid_json')
    expect(await codeOf(readJsonBody(request(new Uint8Array([0x22, 0xff, 0x22])), 100))).toBe('invalid_json')
  })

  it('stops reading a chunked body at the limit', async () => {
    expect(await codeOf(readJsonBody(request(chunked(100, 1024)), 64 * 1024))).toBe('payload_too_large')
    expect(await codeOf(readJsonBody(request(chunked(10, 1024)), 64 * 1024))).toBe('invalid_json')
  })

  it('trusts a Content-Length over the limit without reading', async () => {
    const headers = { 'content-type': 'application/json', 'content-length': '1000000' }
    expect(await codeOf(readJsonBody(request('{}', headers), 100))).toBe('payload_too_large')
  })

  it('reads an absent optional body as {}', async () => {
    expect(await readOptionalJsonBody(request(null, {}), 100)).toEqual({})
    expect(await readOptionalJsonBody(request('', { 'content-type': 'application/json' }), 100)).toEqual({})
    expect(await readOptionalJsonBody(request('{"reason":"x"}'), 100)).toEqual({ reason: 'x' })
    expect(
      await codeOf(readOptionalJsonBody(request('reason=x', { 'content-type': 'text/plain' }), 100)),
    ).toBe('unsupported_media_type')
  })
})
