import { describe, expect, it } from 'vitest'
import { isSigned, plainIp, summarizeAuth } from './auth'

type Result = Parameters<typeof summarizeAuth>[0]
const signature = (result: string, extra: Record<string, unknown> = {}) => ({
  signingDomain: 'shop.test',
  selector: 'fl1',
  status: { result, ...extra },
})
const result = (rows: unknown[], more: Record<string, unknown> = {}) =>
  ({ dkim: { results: rows }, spf: false, dmarc: false, ...more }) as unknown as Result

describe('summarizeAuth', () => {
  it('reports a passing signature with its domain, selector and alignment, and SPF and DMARC', () => {
    expect(
      summarizeAuth(
        result([signature('pass', { aligned: 'shop.test' })], {
          spf: { domain: 'fl-bounces.shop.test', status: { result: 'pass' } },
          dmarc: { status: { result: 'pass' } },
        }),
      ),
    ).toEqual({
      dkim: 'pass',
      dkimDomain: 'shop.test',
      dkimSelector: 'fl1',
      aligned: true,
      spf: 'pass',
      spfDomain: 'fl-bounces.shop.test',
      dmarc: 'pass',
    })
  })

  it('prefers a passing signature over a failing one before it', () => {
    const auth = summarizeAuth(
      result([
        { ...signature('fail', { comment: 'bad signature' }), signingDomain: 'old.test' },
        signature('pass', { aligned: false }),
      ]),
    )
    expect(auth).toEqual({ dkim: 'pass', dkimDomain: 'shop.test', dkimSelector: 'fl1', aligned: false })
  })

  it('turns every other outcome into fail, saying why', () => {
    expect(summarizeAuth(result([signature('neutral', { comment: 'body hash did not verify' })]))).toEqual({
      dkim: 'fail',
      dkimDomain: 'shop.test',
      dkimSelector: 'fl1',
      dkimReason: 'body hash did not verify',
      aligned: false,
    })
    expect(summarizeAuth(result([signature('temperror')])).dkimReason).toBe('temperror')
  })

  it('says none when there is no signature', () => {
    expect(summarizeAuth(result([]))).toEqual({ dkim: 'none' })
  })
})

describe('isSigned', () => {
  it('looks for a DKIM-Signature header', () => {
    expect(isSigned({ 'dkim-signature': 'v=1; d=shop.test' })).toBe(true)
    expect(isSigned({ subject: 'DKIM-Signature' })).toBe(false)
  })
})

describe('plainIp', () => {
  it('unwraps IPv4-mapped IPv6 addresses and leaves others alone', () => {
    expect(plainIp('::ffff:127.0.0.1')).toBe('127.0.0.1')
    expect(plainIp('::1')).toBe('::1')
    expect(plainIp('10.0.0.1')).toBe('10.0.0.1')
  })
})
