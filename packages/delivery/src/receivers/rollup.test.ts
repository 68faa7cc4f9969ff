import { describe, expect, it } from 'vitest'
import { providerOf } from './rollup'
import { loadReceiverRules, parseReceiverRules } from './rules'

const rules = loadReceiverRules()
const limitsOf = (name: string) => rules.providers.find((provider) => provider.name === name)?.limits

describe('providerOf with the default rules', () => {
  it('rolls a Google-Workspace-hosted domain into google, with gmail.com', () => {
    const acme = providerOf(
      { domain: 'acme.com', mxHosts: ['aspmx.l.google.com', 'alt1.aspmx.l.google.com'] },
      rules,
    )
    const gmail = providerOf(
      { domain: 'gmail.com', mxHosts: ['gmail-smtp-in.l.google.com', 'alt1.gmail-smtp-in.l.google.com'] },
      rules,
    )
    expect(acme).toEqual({ provider: 'google', limits: limitsOf('google') })
    expect(gmail).toEqual(acme)
    expect(providerOf({ domain: 'old.example', mxHosts: ['aspmx2.googlemail.com'] }, rules).provider).toBe(
      'google',
    )
  })

  it('rolls consumer Outlook and a Microsoft 365 business into microsoft', () => {
    expect(
      providerOf({ domain: 'outlook.com', mxHosts: ['outlook-com.olc.protection.outlook.com'] }, rules),
    ).toEqual({
      provider: 'microsoft',
      limits: limitsOf('microsoft'),
    })
    expect(
      providerOf({ domain: 'contoso.com', mxHosts: ['contoso-com.mail.protection.outlook.com'] }, rules)
        .provider,
    ).toBe('microsoft')
    expect(
      providerOf({ domain: 'hotmail.com', mxHosts: ['hotmail-com.olc.protection.outlook.com'] }, rules)
        .provider,
    ).toBe('microsoft')
  })

  it('rolls Yahoo and AOL into yahoo, iCloud into apple', () => {
    expect(providerOf({ domain: 'yahoo.com', mxHosts: ['mta5.am0.yahoodns.net'] }, rules).provider).toBe(
      'yahoo',
    )
    expect(providerOf({ domain: 'aol.com', mxHosts: ['mx-aol.mail.gm0.yahoodns.net'] }, rules).provider).toBe(
      'yahoo',
    )
    expect(
      providerOf({ domain: 'icloud.com', mxHosts: ['mx01.mail.icloud.com', 'mx02.mail.icloud.com'] }, rules),
    ).toEqual({ provider: 'apple', limits: limitsOf('apple') })
  })

  it('matches host names without case and without the trailing dot of a DNS answer', () => {
    expect(providerOf({ domain: 'acme.com', mxHosts: ['ASPMX.L.Google.COM.'] }, rules).provider).toBe(
      'google',
    )
  })

  it('does not take the suffix itself, nor a host that only ends in the same letters', () => {
    expect(providerOf({ domain: 'a.example', mxHosts: ['google.com'] }, rules).provider).toBe('a.example')
    expect(providerOf({ domain: 'b.example', mxHosts: ['mx.notgoogle.com'] }, rules).provider).toBe(
      'b.example',
    )
  })

  it('lets the first MX host a rule matches decide', () => {
    const mixed = providerOf(
      {
        domain: 'mixed.example',
        mxHosts: ['mx.mixed.example', 'aspmx.l.google.com', 'mx01.mail.icloud.com'],
      },
      rules,
    )
    expect(mixed.provider).toBe('google')
    const reversed = providerOf(
      { domain: 'mixed.example', mxHosts: ['mx01.mail.icloud.com', 'aspmx.l.google.com'] },
      rules,
    )
    expect(reversed.provider).toBe('apple')
  })

  it('makes a domain no rule matches its own provider, named by its lowercase A-label, with default limits', () => {
    expect(
      providerOf({ domain: 'Small-Shop.Example.', mxHosts: ['mail.small-shop.example'] }, rules),
    ).toEqual({
      provider: 'small-shop.example',
      limits: rules.default.limits,
    })
    expect(providerOf({ domain: 'bücher.example', mxHosts: ['mx.bücher.example'] }, rules).provider).toBe(
      'xn--bcher-kva.example',
    )
    // An implicit MX (no MX records: the domain itself) or a lookup with no hosts at all.
    expect(providerOf({ domain: 'bare.example', mxHosts: [] }, rules).provider).toBe('bare.example')
  })

  it('refuses a domain that is no domain name, naming it', () => {
    expect(() => providerOf({ domain: '', mxHosts: [] }, rules)).toThrow(
      'providerOf: "" is not a domain name',
    )
    expect(() => providerOf({ domain: 'a b.example', mxHosts: [] }, rules)).toThrow(
      'providerOf: "a b.example" is not a domain name',
    )
  })
})

describe('providerOf with overlapping rules', () => {
  const overlapping = parseReceiverRules({
    providers: [
      {
        name: 'microsoft',
        mx: ['*.protection.outlook.com'],
        limits: { connections: 5, messagesPerConnection: 50, perMinute: 600 },
      },
      {
        name: 'outlook-consumer',
        mx: ['*.olc.protection.outlook.com'],
        limits: { connections: 3, messagesPerConnection: 20, perMinute: 300 },
      },
      {
        name: 'one-host',
        mx: ['special.mail.protection.outlook.com'],
        limits: { connections: 1, messagesPerConnection: 1, perMinute: 10 },
      },
    ],
    default: { limits: { connections: 2, messagesPerConnection: 20, perMinute: 60 } },
    warmup: { schedule: [{ day: 1, perDayPerProvider: 100 }], warmAfterDay: 2 },
    criticalReserve: 0,
    backoff: { decrease: 0.5, pauseMs: 1000, increasePerMinute: 1, minPerMinute: 1 },
  })

  it('prefers an exact host over a suffix, and a longer suffix over a shorter, whatever the order', () => {
    const of = (host: string) => providerOf({ domain: 'x.example', mxHosts: [host] }, overlapping).provider
    expect(of('outlook-com.olc.protection.outlook.com')).toBe('outlook-consumer')
    expect(of('contoso-com.mail.protection.outlook.com')).toBe('microsoft')
    expect(of('special.mail.protection.outlook.com')).toBe('one-host')
  })
})
