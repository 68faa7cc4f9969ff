import { createTemplate } from '@fairlane/db/queries/templates'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createWebHarness,
  jsonRequest,
  readJson,
  seedTenant,
  type WebHarness,
} from '../../test-support/harness'
import { postMessage } from './post-message'

const env = setupTestEnvironment('web-bad-input')

let harness: WebHarness
let apiKey: string

beforeAll(async () => {
  harness = createWebHarness(env)
  const tenant = await seedTenant(harness)
  apiKey = tenant.apiKey
  await createTemplate(harness.database.db, {
    tenantId: tenant.tenantId,
    slug: 'receipt',
    name: 'Receipt',
    subject: 'Receipt for {{customer}}',
    html: '<p>Total: {{total}}</p>',
  })
})

afterAll(async () => {
  await harness?.close()
})

interface Case {
  name: string
  status: number
  code: string
  /** The field the error must name in `details`, when it is a validation error. */
  path?: string
  body?: unknown
  rawBody?: string
  headers?: Record<string, string>
}

const otp = (variables: Record<string, unknown>, to = 'a@b.test') => ({ to, template: 'otp', variables })

const cases: Case[] = [
  {
    name: 'an invalid address',
    status: 400,
    code: 'validation_failed',
    path: 'to',
    body: otp({ code: '1234' }, 'nope'),
  },
  {
    name: 'a missing recipient',
    status: 400,
    code: 'validation_failed',
    path: 'to',
    body: { template: 'otp', variables: { code: '1234' } },
  },
  {
    name: 'otp without its code',
    status: 400,
    code: 'validation_failed',
    path: 'variables.code',
    body: otp({}),
  },
  {
    name: 'a malformed code',
    status: 400,
    code: 'validation_failed',
    path: 'variables.code',
    body: otp({ code: '12' }),
  },
  {
    name: 'password-reset without resetUrl',
    status: 400,
    code: 'validation_failed',
    path: 'variables.resetUrl',
    body: { to: 'a@b.test', template: 'password-reset', variables: {} },
  },
  {
    name: 'a tenant template missing a variable',
    status: 400,
    code: 'validation_failed',
    path: 'variables.total',
    body: { to: 'a@b.test', template: 'receipt', variables: { customer: 'Ann' } },
  },
  {
    name: 'an unknown template',
    status: 400,
    code: 'validation_failed',
    path: 'template',
    body: { to: 'a@b.test', template: 'nope' },
  },
  {
    name: 'CRLF in the recipient',
    status: 400,
    code: 'validation_failed',
    path: 'to',
    body: otp({ code: '1234' }, 'a@b.test\r\nBcc: x@evil.test'),
  },
  {
    name: 'LF in a custom subject',
    status: 400,
    code: 'validation_failed',
    path: 'subject',
    body: { to: 'a@b.test', subject: 'Hi\nBcc: x@evil.test', text: 'x' },
  },
  {
    name: 'CRLF in appName',
    status: 400,
    code: 'validation_failed',
    path: 'variables.appName',
    body: otp({ code: '1234', appName: 'A\r\nBcc: x@evil.test' }),
  },
  {
    name: 'CR in a variable of a tenant subject',
    status: 400,
    code: 'validation_failed',
    path: 'variables.customer',
    body: {
      to: 'a@b.test',
      template: 'receipt',
      variables: { customer: 'Ann\rBcc: x@evil.test', total: '3' },
    },
  },
  {
    name: 'custom content without a body',
    status: 400,
    code: 'validation_failed',
    path: 'html',
    body: { to: 'a@b.test', subject: 'Hi' },
  },
  {
    name: 'an unknown field',
    status: 400,
    code: 'validation_failed',
    path: 'bcc',
    body: { to: 'a@b.test', subject: 'Hi', text: 'x', bcc: 'c@d.test' },
  },
  { name: 'a JSON array', status: 400, code: 'validation_failed', path: '', body: [] },
  {
    name: 'malformed JSON',
    status: 400,
    code: 'invalid_json',
    rawBody: '{"to": "a@b.test",',
    headers: { 'content-type': 'application/json' },
  },
  {
    name: 'an empty body',
    status: 400,
    code: 'invalid_json',
    rawBody: '',
    headers: { 'content-type': 'application/json' },
  },
  {
    name: 'a form body',
    status: 415,
    code: 'unsupported_media_type',
    rawBody: 'to=a@b.test',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  },
  { name: 'no content type', status: 415, code: 'unsupported_media_type', rawBody: '{}' },
  {
    name: 'a non-UTF-8 charset',
    status: 415,
    code: 'unsupported_media_type',
    rawBody: '{}',
    headers: { 'content-type': 'application/json; charset=latin1' },
  },
  {
    name: 'an oversize body',
    status: 413,
    code: 'payload_too_large',
    body: { to: 'a@b.test', subject: 'Hi', html: 'x'.repeat(70_000) },
  },
  {
    name: 'an oversize body whose Content-Length lies',
    status: 413,
    code: 'payload_too_large',
    rawBody: JSON.stringify({ to: 'a@b.test', subject: 'Hi', html: 'x'.repeat(70_000) }),
    headers: { 'content-type': 'application/json', 'content-length': '100' },
  },
  {
    name: 'a declared Content-Length over the limit',
    status: 413,
    code: 'payload_too_large',
    rawBody: '{}',
    headers: { 'content-type': 'application/json', 'content-length': String(20 * 1024 * 1024) },
  },
  {
    name: 'an over-long Idempotency-Key',
    status: 400,
    code: 'validation_failed',
    path: 'Idempotency-Key',
    body: otp({ code: '1234' }),
    headers: { 'idempotency-key': 'k'.repeat(256) },
  },
]

async function rowCounts(): Promise<string> {
  const [row] = await harness.database.sql`
    select (select count(*) from messages) as messages, (select count(*) from outbox) as outbox`
  return JSON.stringify(row)
}

describe('bad input to POST /api/v1/messages', () => {
  it.each(cases)('refuses $name with $status, naming what is wrong, and writes nothing', async (testCase) => {
    const before = await rowCounts()
    const request = jsonRequest('/api/v1/messages', {
      method: 'POST',
      token: apiKey,
      body: testCase.body,
      rawBody: testCase.rawBody,
      headers: testCase.headers,
    })
    const response = await postMessage(request, harness.apiDeps())
    const body = await readJson<{ error: { code: string; message: string; details?: { path: string }[] } }>(
      response,
    )
    expect(response.status, JSON.stringify(body)).toBe(testCase.status)
    expect(body.error.code).toBe(testCase.code)
    expect(body.error.message.length).toBeGreaterThan(5)
    if (testCase.path !== undefined)
      expect(body.error.details?.map((issue) => issue.path)).toContain(testCase.path)
    expect(await rowCounts()).toBe(before)
  })

  it('never answers 500 or logs an error for any of them', () => {
    expect(harness.logger.lines.filter((line) => line.level === 'error')).toEqual([])
  })
})
