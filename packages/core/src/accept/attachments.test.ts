import { describe, expect, it } from 'vitest'
import { AppError } from '../errors/app-error'
import {
  DEFAULT_ATTACHMENT_RULES,
  decodeStrictBase64,
  extensionOf,
  MAX_ATTACHMENTS,
  sanitizeFilename,
} from './attachments'
import { parseMessageRequest } from './message-request'

const pdf = Buffer.from('%PDF-1.4 fake').toString('base64')
const base = { to: 'a@b.test', subject: 'Invoice', text: 'attached' }

function refusal(body: unknown, rules = DEFAULT_ATTACHMENT_RULES): AppError {
  try {
    parseMessageRequest(body, rules)
  } catch (error) {
    if (error instanceof AppError) return error
    throw error
  }
  throw new Error(`expected ${JSON.stringify(body).slice(0, 200)} to be refused`)
}

describe('sanitizeFilename', () => {
  it('keeps the last path segment only', () => {
    expect(sanitizeFilename('../../etc/passwd')).toBe('passwd')
    expect(sanitizeFilename('C:\\Users\\me\\invoice.pdf')).toBe('invoice.pdf')
  })

  it('takes out control and format characters, and leading dots', () => {
    expect(sanitizeFilename('in\u0000vo\u001fice\r\n.pdf')).toBe('invoice.pdf')
    // A right-to-left override would show `invoice‮fdp.exe` as "invoiceexe.pdf".
    expect(sanitizeFilename('invoice\u202efdp.exe')).toBe('invoicefdp.exe')
    expect(sanitizeFilename('..hidden')).toBe('hidden')
    expect(sanitizeFilename('  a   b.txt ')).toBe('a b.txt')
  })

  it('cuts a long name to 255 characters, keeping its extension', () => {
    const name = sanitizeFilename(`${'x'.repeat(300)}.pdf`)
    expect(name).toHaveLength(255)
    expect(name.endsWith('.pdf')).toBe(true)
    expect(Array.from(sanitizeFilename('é'.repeat(400)))).toHaveLength(255)
  })
})

describe('decodeStrictBase64', () => {
  it('decodes padded standard base64', () => {
    expect(Buffer.from(decodeStrictBase64('aGVsbG8=') ?? []).toString()).toBe('hello')
    expect(Buffer.from(decodeStrictBase64('+/+/') ?? []).toString('base64')).toBe('+/+/')
  })

  it('refuses what is not strictly base64', () => {
    for (const value of ['aGVsbG8', 'aGVs bG8=', 'aGVs\nbG8=', '-_-_', 'a===', 'not base64!', 'aGVsbG9=']) {
      expect(decodeStrictBase64(value), value).toBeNull()
    }
  })
})

describe('extensionOf', () => {
  it('reads the last extension, lower case', () => {
    expect(extensionOf('a.tar.EXE')).toBe('exe')
    expect(extensionOf('README')).toBeNull()
    expect(extensionOf('.bashrc')).toBeNull()
    expect(extensionOf('name.')).toBeNull()
  })
})

describe('attachments on POST /api/v1/messages', () => {
  it('decodes attachments on custom and template bodies', () => {
    const request = parseMessageRequest({
      ...base,
      attachments: [
        { filename: 'invoice.pdf', contentType: 'application/PDF', content: pdf },
        { filename: 'logo.png', contentType: 'image/png', content: 'iVBORw==', contentId: '<logo@acme>' },
      ],
    })
    expect(request.attachments).toEqual([
      {
        filename: 'invoice.pdf',
        contentType: 'application/pdf',
        contentId: null,
        content: Buffer.from(pdf, 'base64'),
      },
      {
        filename: 'logo.png',
        contentType: 'image/png',
        contentId: 'logo@acme',
        content: Buffer.from('iVBORw==', 'base64'),
      },
    ])
    const template = parseMessageRequest({
      to: 'a@b.test',
      template: 'welcome',
      attachments: [{ filename: 'a.txt', contentType: 'text/plain', content: 'YQ==' }],
    })
    expect(template.attachments?.map((attachment) => attachment.filename)).toEqual(['a.txt'])
  })

  it('leaves attachments out when none are given', () => {
    expect(parseMessageRequest(base)).not.toHaveProperty('attachments')
    expect(parseMessageRequest({ ...base, attachments: [] })).not.toHaveProperty('attachments')
  })

  it('names content that does not decode (400)', () => {
    const error = refusal({
      ...base,
      attachments: [
        { filename: 'a.pdf', contentType: 'application/pdf', content: pdf },
        { filename: 'b.pdf', contentType: 'application/pdf', content: 'not base64!' },
      ],
    })
    expect(error.code).toBe('validation_failed')
    expect(error.details).toEqual([
      {
        path: 'attachments[1].content',
        message: 'must be base64 (standard alphabet, padded, no line breaks)',
      },
    ])
  })

  it('names a wrong type, a wrong Content-ID, a missing name and unknown fields (400)', () => {
    const error = refusal({
      ...base,
      attachments: [
        { filename: '../', contentType: 'pdf', content: pdf, contentId: 'has space', inline: true },
      ],
    })
    expect(error.code).toBe('validation_failed')
    expect(error.details?.map((issue) => issue.path).sort()).toEqual([
      'attachments[0].contentId',
      'attachments[0].contentType',
      'attachments[0].filename',
      'attachments[0].inline',
    ])
  })

  it(`refuses more than ${MAX_ATTACHMENTS} attachments (400)`, () => {
    const one = { filename: 'a.txt', contentType: 'text/plain', content: 'YQ==' }
    const error = refusal({ ...base, attachments: Array.from({ length: MAX_ATTACHMENTS + 1 }, () => one) })
    expect(error.code).toBe('validation_failed')
    expect(error.details?.[0]?.path).toBe('attachments')
  })

  it('refuses an executable type by its extension (422 naming the file)', () => {
    const error = refusal({
      ...base,
      attachments: [
        { filename: 'ok.pdf', contentType: 'application/pdf', content: pdf },
        { filename: 'setup.EXE', contentType: 'application/octet-stream', content: pdf },
      ],
    })
    expect(error.code).toBe('unprocessable')
    expect(error.details).toEqual([
      { path: 'attachments[1].filename', message: 'setup.EXE: .exe files are refused' },
    ])
    // The list is the deployment's.
    const allowed = parseMessageRequest(
      {
        ...base,
        attachments: [{ filename: 'setup.exe', contentType: 'application/octet-stream', content: pdf }],
      },
      { ...DEFAULT_ATTACHMENT_RULES, blockedExtensions: ['js'] },
    )
    expect(allowed.attachments).toHaveLength(1)
  })

  it('refuses a message whose decoded body and attachments pass the limit (413 naming attachments)', () => {
    const rules = { ...DEFAULT_ATTACHMENT_RULES, maxMessageBytes: 1_000 }
    const content = Buffer.alloc(1_000 - Buffer.byteLength('Invoiceattached')).toString('base64')
    const atLimit = parseMessageRequest(
      { ...base, attachments: [{ filename: 'a.bin', contentType: 'application/octet-stream', content }] },
      rules,
    )
    expect(atLimit.attachments).toHaveLength(1)
    const error = refusal(
      {
        ...base,
        text: 'attached!',
        attachments: [{ filename: 'a.bin', contentType: 'application/octet-stream', content }],
      },
      rules,
    )
    expect(error.code).toBe('payload_too_large')
    expect(error.details?.[0]?.path).toBe('attachments')
  })
})
