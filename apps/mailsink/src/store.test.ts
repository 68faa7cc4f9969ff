import { describe, expect, it } from 'vitest'
import { MessageStore, parseSince, type StoredMessage } from './store'

function message(id: string, recipients: string[], receivedAt = '2024-05-01T12:00:00.000Z'): StoredMessage {
  return {
    id,
    messageId: `<${id}@test>`,
    from: 'sender@example.com',
    to: recipients.join(', '),
    recipients: recipients.map((r) => r.toLowerCase()),
    subject: `subject ${id}`,
    text: 'body',
    html: null,
    headers: {},
    receivedAt,
    envelope: { from: 'sender@example.com', to: recipients },
    auth: { dkim: 'none' },
    receiver: null,
    sourceAddress: '127.0.0.1',
    tls: false,
  }
}

const ids = (messages: StoredMessage[]) => messages.map((m) => m.id)

describe('MessageStore', () => {
  it('lists oldest first and finds by id', () => {
    const store = new MessageStore(10)
    store.add(message('a', ['x@example.com']))
    store.add(message('b', ['y@example.com']))
    expect(ids(store.list())).toEqual(['a', 'b'])
    expect(store.get('b')?.subject).toBe('subject b')
    expect(store.get('nope')).toBeUndefined()
    expect(store.size).toBe(2)
  })

  it('drops the oldest beyond capacity, also from the id index', () => {
    const store = new MessageStore(3)
    for (const id of ['1', '2', '3', '4', '5']) store.add(message(id, ['x@example.com']))
    expect(store.size).toBe(3)
    expect(ids(store.list())).toEqual(['3', '4', '5'])
    expect(store.get('1')).toBeUndefined()
    expect(store.get('2')).toBeUndefined()
    expect(store.get('3')?.id).toBe('3')
    expect(ids(store.latest(2))).toEqual(['5', '4'])
    expect(ids(store.latest(10))).toEqual(['5', '4', '3'])
  })

  it('keeps working after wrapping around several times', () => {
    const store = new MessageStore(4)
    for (let i = 0; i < 23; i++) store.add(message(String(i), ['x@example.com']))
    expect(ids(store.list())).toEqual(['19', '20', '21', '22'])
    expect(ids(store.latest(200))).toEqual(['22', '21', '20', '19'])
  })

  it('filters by envelope recipient, case-insensitively and exactly', () => {
    const store = new MessageStore(10)
    store.add(message('a', ['Alice@Example.com', 'bob@example.com']))
    store.add(message('b', ['bob@example.com']))
    store.add(message('c', ['alice@example.com.evil']))
    expect(ids(store.list({ to: 'alice@example.com' }))).toEqual(['a'])
    expect(ids(store.list({ to: ' BOB@example.com ' }))).toEqual(['a', 'b'])
    expect(ids(store.list({ to: 'example.com' }))).toEqual([])
  })

  it('filters by since, inclusive', () => {
    const store = new MessageStore(10)
    store.add(message('old', ['x@example.com'], '2024-05-01T12:00:00.000Z'))
    store.add(message('edge', ['x@example.com'], '2024-05-01T12:00:01.000Z'))
    store.add(message('new', ['y@example.com'], '2024-05-01T12:00:02.000Z'))
    const since = Date.parse('2024-05-01T12:00:01.000Z')
    expect(ids(store.list({ since }))).toEqual(['edge', 'new'])
    expect(ids(store.list({ since, to: 'x@example.com' }))).toEqual(['edge'])
  })

  it('clears and reports how many it held', () => {
    const store = new MessageStore(2)
    for (const id of ['1', '2', '3']) store.add(message(id, ['x@example.com']))
    expect(store.clear()).toBe(2)
    expect(store.size).toBe(0)
    expect(store.list()).toEqual([])
    expect(store.get('3')).toBeUndefined()
    store.add(message('4', ['x@example.com']))
    expect(ids(store.list())).toEqual(['4'])
  })

  it('refuses a capacity below 1', () => {
    expect(() => new MessageStore(0)).toThrow(RangeError)
  })
})

describe('parseSince', () => {
  it('reads epoch milliseconds and ISO timestamps', () => {
    expect(parseSince('1714564800000')).toBe(1714564800000)
    expect(parseSince('2024-05-01T12:00:00.000Z')).toBe(Date.parse('2024-05-01T12:00:00.000Z'))
    expect(parseSince('2024-05-01T14:00:00+02:00')).toBe(Date.parse('2024-05-01T12:00:00.000Z'))
    expect(parseSince('2024-05-01')).toBe(Date.parse('2024-05-01'))
  })

  it('refuses anything else', () => {
    for (const bad of ['', 'yesterday', 'March 7', '-5', '1.5', '2024-13-45T00:00:00Z', '12abc']) {
      expect(parseSince(bad), bad).toBeUndefined()
    }
  })
})
