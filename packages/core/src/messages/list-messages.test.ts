import { describe, expect, it } from 'vitest'
import { AppError } from '../errors/app-error'
import { encodeMessageCursor, listMessagePage, parseMessagesQuery } from './list-messages'
import type { MessageListEntry, MessageListQuery } from './ports'

const id = '0193c3d1-5b7e-7f2a-9c1d-2b3c4d5e6f70'

function issuesOf(query: Record<string, string>) {
  try {
    parseMessagesQuery(query)
  } catch (error) {
    if (error instanceof AppError) return error.details
    throw error
  }
  throw new Error('not refused')
}

describe('message cursor', () => {
  it('decodes what it encodes, and is opaque', () => {
    const cursor = encodeMessageCursor(id)
    expect(cursor).not.toContain(id)
    expect(parseMessagesQuery({ cursor }).cursor).toBe(id)
  })

  it('refuses a cursor it did not give out, naming cursor', () => {
    for (const cursor of ['garbage', encodeMessageCursor('not-a-uuid'), `${encodeMessageCursor(id)}A`]) {
      expect(issuesOf({ cursor })?.map((issue) => issue.path)).toEqual(['cursor'])
    }
  })
})

describe('parseMessagesQuery', () => {
  it('takes every filter', () => {
    const parsed = parseMessagesQuery({
      status: 'scheduled',
      to: 'a@x.test',
      campaignId: id,
      from: '2026-12-01T00:00:00Z',
      until: '2026-12-02T00:00:00+01:00',
      limit: '10',
    })
    expect(parsed).toMatchObject({ status: 'scheduled', to: 'a@x.test', campaignId: id, limit: 10 })
    expect(parsed.until?.toISOString()).toBe('2026-12-01T23:00:00.000Z')
  })

  it('names each bad filter', () => {
    const paths = issuesOf({ status: 'lost', campaignId: 'x', from: 'yesterday', limit: '0', colour: 'red' })
      ?.map((issue) => issue.path)
      .sort()
    expect(paths).toEqual(['campaignId', 'colour', 'from', 'limit', 'status'])
  })

  it('refuses until before from', () => {
    expect(issuesOf({ from: '2026-12-02T00:00:00Z', until: '2026-12-01T00:00:00Z' })?.[0]?.path).toBe('until')
  })

  it('treats empty parameters as absent', () => {
    expect(parseMessagesQuery({ status: '', to: '' })).toEqual({})
  })
})

describe('listMessagePage', () => {
  const entry = (n: number): MessageListEntry => ({
    id: `0193c3d1-5b7e-7f2a-9c1d-2b3c4d5e6f${String(n).padStart(2, '0')}`,
    toAddress: `u${n}@x.test`,
    subject: null,
    status: 'queued',
    lane: 'default',
    campaignId: null,
    createdAt: new Date(),
    sentAt: null,
    sendAt: null,
  })
  it('gives a next cursor only when there is more', async () => {
    let asked: MessageListQuery | undefined
    const rows = [entry(1), entry(2), entry(3)]
    const store = {
      list: async (query: MessageListQuery) => {
        asked = query
        return rows.slice(0, query.limit)
      },
    }
    const page = await listMessagePage({ tenantId: id, limit: 2 }, { store })
    expect(asked?.limit).toBe(3)
    expect(page.items).toHaveLength(2)
    expect(page.nextCursor).toBe(encodeMessageCursor(entry(2).id))
    const last = await listMessagePage({ tenantId: id, limit: 3 }, { store })
    expect(last.nextCursor).toBeUndefined()
  })
})
