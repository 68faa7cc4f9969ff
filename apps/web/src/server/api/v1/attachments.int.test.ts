import { messageContents, messages } from '@fairlane/db'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  seedTenant,
  type WebHarness,
} from '../../test-support/harness'
import type { ApiDeps } from './deps'
import { getMessage } from './get-message'
import { postMessage } from './post-message'

const env = setupTestEnvironment('web-attachments')

let harness: WebHarness
let deps: ApiDeps
let tenant: Awaited<ReturnType<typeof seedTenant>>
let other: Awaited<ReturnType<typeof seedTenant>>

beforeAll(async () => {
  harness = createWebHarness(env)
  deps = harness.apiDeps()
  tenant = await seedTenant(harness, 'Acme')
  other = await seedTenant(harness, 'Globex')
})
afterAll(async () => {
  await harness?.close()
})

const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(200_000, 0x41)])
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')

const post = (body: unknown, apiDeps: ApiDeps = deps) =>
  postMessage(jsonRequest('/api/v1/messages', { token: tenant.apiKey, body }), apiDeps)
const get = (id: string, key = tenant.apiKey) =>
  getMessage(jsonRequest(`/api/v1/messages/${id}`, { token: key }), id, deps)

const custom = {
  to: 'user@example.test',
  subject: 'Your invoice',
  html: '<p><img src="cid:logo@acme"> Hi</p>',
}
const pdf = { filename: 'invoice.pdf', contentType: 'application/pdf', content: PDF.toString('base64') }
const logo = {
  filename: 'logo.png',
  contentType: 'image/png',
  content: PNG.toString('base64'),
  contentId: 'logo@acme',
}

interface ErrorBody {
  error: { code: string; message: string; details?: { path: string; message: string }[] }
}

describe('POST /api/v1/messages with attachments', () => {
  it('accepts a PDF and an inline image (over the 64 KB body cap), stores them in order and sizes the message', async () => {
    const response = await post({ ...custom, attachments: [pdf, logo] })
    expect(response.status).toBe(202)
    const { id } = await readJson<{ id: string }>(response)
    const rows = await harness.database.sql<
      {
        position: number
        filename: string
        content_type: string
        content_id: string | null
        size_bytes: number
        content: Buffer
      }[]
    >`select position, filename, content_type, content_id, size_bytes, content
      from message_attachments where message_id = ${id} order by position`
    expect(rows.map(({ content, ...row }) => row)).toEqual([
      {
        position: 0,
        filename: 'invoice.pdf',
        content_type: 'application/pdf',
        content_id: null,
        size_bytes: PDF.byteLength,
      },
      {
        position: 1,
        filename: 'logo.png',
        content_type: 'image/png',
        content_id: 'logo@acme',
        size_bytes: PNG.byteLength,
      },
    ])
    expect(rows[0]?.content.equals(PDF)).toBe(true)
    const [message] = await harness.database.sql<
      { size_bytes: number }[]
    >`select size_bytes from messages where id = ${id}`
    expect(message?.size_bytes).toBeGreaterThan(PDF.byteLength + PNG.byteLength)

    const detail = await readJson<{ attachments: unknown[] }>(await get(id))
    expect(detail.attachments).toEqual([
      { filename: 'invoice.pdf', contentType: 'application/pdf', size: PDF.byteLength },
      { filename: 'logo.png', contentType: 'image/png', size: PNG.byteLength },
    ])
    // Another tenant's key sees no message at all.
    expect((await get(id, other.apiKey)).status).toBe(404)
  })

  it('takes attachments on a template body too, and answers an empty list for mail without any', async () => {
    const response = await post({
      to: 'user@example.test',
      template: 'otp',
      variables: { code: '123456' },
      attachments: [{ filename: 'a.txt', contentType: 'text/plain', content: 'aGk=' }],
    })
    expect(response.status).toBe(202)
    const { id } = await readJson<{ id: string }>(response)
    expect((await readJson<{ attachments: unknown[] }>(await get(id))).attachments).toEqual([
      { filename: 'a.txt', contentType: 'text/plain', size: 2 },
    ])
    const plain = await readJson<{ id: string }>(await post({ ...custom, to: 'plain@example.test' }))
    expect((await readJson<{ attachments: unknown[] }>(await get(plain.id))).attachments).toEqual([])
  })

  it('answers 400 naming attachments[i].content for base64 that does not decode, writing nothing', async () => {
    const before = await harness.database.sql`select count(*)::int as n from messages`
    const response = await post({ ...custom, attachments: [pdf, { ...pdf, content: 'not base64!' }] })
    expect(response.status).toBe(400)
    const body = await readJson<ErrorBody>(response)
    expect(body.error.details).toEqual([
      {
        path: 'attachments[1].content',
        message: 'must be base64 (standard alphabet, padded, no line breaks)',
      },
    ])
    const after = await harness.database.sql`select count(*)::int as n from messages`
    expect(after[0]?.n).toBe(before[0]?.n)
  })

  it('answers 422 naming the file for an executable type', async () => {
    const response = await post({ ...custom, attachments: [{ ...pdf, filename: 'C:\\temp\\setup.exe' }] })
    expect(response.status).toBe(422)
    const body = await readJson<ErrorBody>(response)
    expect(body.error.code).toBe('unprocessable')
    expect(body.error.details).toEqual([
      { path: 'attachments[0].filename', message: 'setup.exe: .exe files are refused' },
    ])
  })

  it('answers 413 naming attachments when the decoded message is over MAX_MESSAGE_BYTES', async () => {
    const small = { ...deps, attachmentRules: { maxMessageBytes: 100_000, blockedExtensions: [] } }
    const response = await post({ ...custom, attachments: [pdf] }, small)
    expect(response.status).toBe(413)
    const body = await readJson<ErrorBody>(response)
    expect(body.error.details?.[0]?.path).toBe('attachments')
  })

  it('still holds a body without attachments to 64 KB (413)', async () => {
    const response = await post({ ...custom, html: `<p>${'x'.repeat(70 * 1024)}</p>` })
    expect(response.status).toBe(413)
    expect((await readJson<ErrorBody>(response)).error.code).toBe('payload_too_large')
    // The same HTML beside an attachment is held to 64 KB too: only the attachments' content is exempt.
    const withFile = await post({ ...custom, html: `<p>${'x'.repeat(70 * 1024)}</p>`, attachments: [logo] })
    expect(withFile.status).toBe(413)
  })
})

describe('GET /api/v1/messages/:id of a message submitted over SMTP', () => {
  it('lists the attachments parsed from its kept MIME', async () => {
    // As an SMTP client writes it: a text part and a CSV attachment (8 bytes decoded).
    const raw = Buffer.from(
      [
        'From: billing@acme.test',
        'To: user@example.test',
        'Subject: Submitted',
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="b1"',
        '',
        '--b1',
        'Content-Type: text/plain',
        '',
        'see attached',
        '--b1',
        'Content-Type: text/csv; name="report.csv"',
        'Content-Disposition: attachment; filename="report.csv"',
        'Content-Transfer-Encoding: base64',
        '',
        Buffer.from('a,b\n1,2\n').toString('base64'),
        '--b1--',
        '',
      ].join('\r\n'),
    )
    const [row] = await harness.database.db
      .insert(messages)
      .values({
        tenantId: tenant.tenantId,
        lane: 'default',
        status: 'sent',
        source: 'smtp',
        toAddress: 'user@example.test',
        subject: 'Submitted',
      })
      .returning({ id: messages.id })
    if (!row) throw new Error('no row')
    await harness.database.db
      .insert(messageContents)
      .values({ messageId: row.id, tenantId: tenant.tenantId, raw })
    const detail = await readJson<{ attachments: unknown[] }>(await get(row.id))
    expect(detail.attachments).toEqual([{ filename: 'report.csv', contentType: 'text/csv', size: 8 }])
    expect((await get(row.id, other.apiKey)).status).toBe(404)
  })
})
