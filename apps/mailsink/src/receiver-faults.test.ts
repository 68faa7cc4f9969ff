import { describe, expect, it } from 'vitest'
import { FaultTable } from './faults'
import {
  DEFAULT_THROTTLE_REPLIES,
  dkimDomainsOf,
  parseReceiverFaultSpec,
  type ReceiverIdentity,
  THROTTLE_WINDOW_MS,
  UnknownReceiverError,
} from './receiver-faults'
import { ReceiverGate } from './receiver-gate'

const google: ReceiverIdentity = { name: 'google', address: '127.0.0.10', port: 2525 }
const microsoft: ReceiverIdentity = { name: 'microsoft', address: '127.0.0.11', port: 2525 }

function setup() {
  let now = 1_000_000
  const faults = new FaultTable({ receivers: () => [google, microsoft], now: () => now })
  return {
    faults,
    gate: new ReceiverGate(google, faults.receivers),
    other: new ReceiverGate(microsoft, faults.receivers),
    advance: (ms: number) => {
      now += ms
    },
  }
}

describe('parseReceiverFaultSpec', () => {
  it('reads a throttle, a connection limit and a greeting delay, lowercasing the receiver', () => {
    expect(
      parseReceiverFaultSpec({
        receiver: ' Google ',
        throttle: { perMinute: 300, per: 'source', reply: ' 421 4.7.28 slow down ' },
        maxConnections: 2,
        greetingDelayMs: 500,
      }),
    ).toEqual({
      ok: true,
      value: {
        receiver: 'google',
        throttle: { perMinute: 300, per: 'source', reply: '421 4.7.28 slow down' },
        maxConnections: 2,
        greetingDelayMs: 500,
      },
    })
  })

  it("gives a throttle without a reply Gmail's 421 4.7.28 for what it counts", () => {
    const parsed = parseReceiverFaultSpec({
      receiver: 'google',
      throttle: { perMinute: 1, per: 'dkimDomain' },
    })
    expect(parsed.ok && parsed.value.throttle?.reply).toBe(DEFAULT_THROTTLE_REPLIES.dkimDomain)
  })

  it.each([
    [{ receiver: 'google' }, undefined, /at least one of/],
    [{ receiver: '', maxConnections: 1 }, 'receiver', /receiver/],
    [{ receiver: 'google', maxConnections: 0 }, 'maxConnections', /from 1/],
    [{ receiver: 'google', maxConnections: -1 }, 'maxConnections', /from 1/],
    [{ receiver: 'google', greetingDelayMs: 1.5 }, 'greetingDelayMs', /integer/],
    [{ receiver: 'google', throttle: { perMinute: -1, per: 'source' } }, 'throttle.perMinute', /integer/],
    [{ receiver: 'google', throttle: { perMinute: 1, per: 'ip' } }, 'throttle.per', /source, dkimDomain/],
    [
      { receiver: 'google', throttle: { perMinute: 1, per: 'source', reply: '250 ok' } },
      'throttle.reply',
      /4xx/,
    ],
    [
      { receiver: 'google', throttle: { perMinute: 1, per: 'source', reply: '421 a\r\n250 b' } },
      'throttle.reply',
      /one line/,
    ],
    [
      { receiver: 'google', throttle: { perMinute: 1, per: 'source', window: 5 } },
      'throttle.window',
      /unknown/,
    ],
    [{ receiver: 'google', match: 'a@b.c', maxConnections: 1 }, 'match', /unknown field "match"/],
  ])('refuses %j naming %s', (body, field, message) => {
    const parsed = parseReceiverFaultSpec(body)
    expect(parsed.ok).toBe(false)
    if (parsed.ok) return
    expect(parsed.field).toBe(field)
    expect(parsed.message).toMatch(message)
  })
})

describe('receiver faults', () => {
  it('refuses a fault for a receiver the sink does not play, naming the ones it does', () => {
    const { faults } = setup()
    expect(() => faults.add({ receiver: '127.0.0.99', maxConnections: 1 })).toThrow(UnknownReceiverError)
    expect(() => faults.add({ receiver: '127.0.0.99', maxConnections: 1 })).toThrow(
      /google \(127\.0\.0\.10:2525\)/,
    )
  })

  it('names a receiver by name, address or address:port', () => {
    const { faults, gate } = setup()
    faults.add({ receiver: '127.0.0.10:2525', greetingDelayMs: 5 })
    faults.add({ receiver: '127.0.0.10', greetingDelayMs: 7 })
    faults.add({ receiver: 'microsoft', greetingDelayMs: 9 })
    expect(gate.greetingDelayMs()).toBe(7)
  })

  it('throttles one source over perMinute accepted messages in a sliding 60 s window, not another', () => {
    const { faults, gate, other, advance } = setup()
    faults.add({ receiver: 'google', throttle: { perMinute: 2, per: 'source', reply: '421 4.7.28 slow' } })
    const a = { source: '127.0.0.2', dkimDomains: [] }
    for (let i = 0; i < 2; i++) {
      expect(gate.mailFrom(a.source)).toBeUndefined()
      expect(gate.data(a)).toBeUndefined()
      advance(10_000)
    }
    expect(gate.mailFrom(a.source)).toBe('421 4.7.28 slow')
    expect(gate.mailFrom('127.0.0.3')).toBeUndefined()
    expect(other.mailFrom(a.source)).toBeUndefined()
    // The first acceptance leaves the window 60 s after it, the second 10 s later.
    advance(THROTTLE_WINDOW_MS - 20_000)
    expect(gate.mailFrom(a.source)).toBe('421 4.7.28 slow')
    advance(1)
    expect(gate.mailFrom(a.source)).toBeUndefined()
    expect(gate.status()).toMatchObject({
      attempts: 6,
      accepted: 2,
      throttled: 2,
      sources: {
        '127.0.0.2': { attempts: 5, accepted: 2, throttled: 2 },
        '127.0.0.3': { attempts: 1, throttled: 0 },
      },
    })
  })

  it('never accepts more than perMinute in any 60 s under a steady flood, and keeps the rate after', () => {
    const { faults, gate, advance } = setup()
    faults.add({ receiver: 'google', throttle: { perMinute: 200, per: 'source' } })
    const acceptedAt: number[] = []
    for (let ms = 0; ms < 180_000; ms += 100) {
      if (gate.data({ source: '127.0.0.2', dkimDomains: [] }) === undefined) acceptedAt.push(ms)
      advance(100)
    }
    const busiestMinute = Math.max(
      ...acceptedAt.map(
        (start) => acceptedAt.filter((time) => time >= start && time < start + 60_000).length,
      ),
    )
    expect(busiestMinute).toBe(200)
    expect(acceptedAt.length).toBe(600)
  })

  it('validates a fault added in code as POST /faults does', () => {
    const { faults } = setup()
    expect(() =>
      faults.add({
        receiver: 'google',
        throttle: { perMinute: 1, per: 'source', reply: '421 two\r\nlines' },
      }),
    ).toThrow(expect.objectContaining({ name: 'InvalidReceiverFaultError', field: 'throttle.reply' }))
    expect(faults.add({ receiver: 'GOOGLE', throttle: { perMinute: 1, per: 'source' } })).toMatchObject({
      receiver: 'google',
      throttle: { reply: DEFAULT_THROTTLE_REPLIES.source },
    })
  })

  it('reports throttle replies as a share of attempts', () => {
    const { faults, gate } = setup()
    faults.add({ receiver: 'google', throttle: { perMinute: 0, per: 'source', reply: '421 4.7.28 no' } })
    expect(gate.status().throttledShare).toBe(0)
    gate.mailFrom('127.0.0.2')
    faults.clear()
    for (let i = 0; i < 3; i++) gate.mailFrom('127.0.0.2')
    expect(gate.status()).toMatchObject({ attempts: 4, throttled: 1, throttledShare: 0.25 })
  })

  it('checks a source throttle again at DATA, so concurrent transactions cannot exceed it', () => {
    const { faults, gate } = setup()
    faults.add({ receiver: 'google', throttle: { perMinute: 1, per: 'source', reply: '451 4.7.650 slow' } })
    const a = { source: '127.0.0.2', dkimDomains: [] }
    expect(gate.mailFrom(a.source)).toBeUndefined()
    expect(gate.mailFrom(a.source)).toBeUndefined()
    expect(gate.data(a)).toBeUndefined()
    expect(gate.data(a)).toBe('451 4.7.650 slow')
  })

  it('throttles one DKIM domain at DATA whatever the source, and not unsigned mail', () => {
    const { faults, gate } = setup()
    faults.add({ receiver: 'google', throttle: { perMinute: 1, per: 'dkimDomain', reply: '421 4.7.28 d' } })
    expect(gate.data({ source: '127.0.0.2', dkimDomains: ['a.test'] })).toBeUndefined()
    expect(gate.data({ source: '127.0.0.3', dkimDomains: ['a.test'] })).toBe('421 4.7.28 d')
    expect(gate.data({ source: '127.0.0.3', dkimDomains: ['b.test'] })).toBeUndefined()
    expect(gate.data({ source: '127.0.0.3', dkimDomains: [] })).toBeUndefined()
    expect(gate.mailFrom('127.0.0.2')).toBeUndefined()
  })

  it('fills the source address and the DKIM domain into the reply, as Gmail names them', () => {
    const { faults, gate } = setup()
    faults.add({ receiver: 'google', throttle: { perMinute: 0, per: 'source' } })
    expect(gate.mailFrom('127.0.0.2')).toMatch(
      /^421 4\.7\.28 \[127\.0\.0\.2\] Our system has detected .* your IP address/,
    )
    faults.clear()
    faults.add({
      receiver: 'google',
      throttle: { perMinute: 0, per: 'dkimDomain', reply: '451 4.7.28 {dkimDomain} via {source}' },
    })
    expect(gate.data({ source: '127.0.0.3', dkimDomains: ['a.test'] })).toBe(
      '451 4.7.28 a.test via 127.0.0.3',
    )
    expect(gate.data({ source: '127.0.0.3', dkimDomains: ['x"<y>.test'] })).toBe(
      '451 4.7.28 xy.test via 127.0.0.3',
    )
  })

  it('limits open connections per source and frees a slot on close; clearing forgets the limits', () => {
    const { faults, gate } = setup()
    faults.add({ receiver: 'google', maxConnections: 1 })
    expect(gate.connect('s1', '127.0.0.2')).toBeUndefined()
    expect(gate.connect('s2', '127.0.0.2')).toBe('421 4.7.0 Too many connections')
    expect(gate.connect('s3', '127.0.0.3')).toBeUndefined()
    gate.disconnect('s1')
    gate.disconnect('s2') // refused: never counted as open
    expect(gate.connect('s4', '127.0.0.2')).toBeUndefined()
    expect(gate.status()).toMatchObject({ connections: 3, openConnections: 2, refusedConnections: 1 })
    expect(faults.clear()).toBe(1)
    expect(gate.connect('s5', '127.0.0.2')).toBeUndefined()
    gate.resetCounts()
    expect(gate.status()).toMatchObject({ connections: 0, openConnections: 3, attempts: 0 })
  })
})

describe('dkimDomainsOf', () => {
  it('reads the d= tag of each signature, lowercased, once', () => {
    expect(
      dkimDomainsOf(
        'v=1; a=rsa-sha256; c=relaxed/relaxed; d=A.test; s=s1; h=from; bh=x; b=y\nv=1; s=s2; d=b.test; b=z\nv=1; d=a.test; b=w',
      ),
    ).toEqual(['a.test', 'b.test'])
    expect(dkimDomainsOf(undefined)).toEqual([])
    expect(dkimDomainsOf('v=1; s=x; bh=d=evil.test')).toEqual([])
  })
})
