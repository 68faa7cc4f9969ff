import type { IncomingMessage } from 'node:http'
import { clientUnitOf } from '@fairlane/core'
import ipaddr from 'ipaddr.js'
import proxyaddr from 'proxy-addr'

/**
 * Who the client is, for throttling sign-in and sign-up. Any client can write `X-Forwarded-For`, so
 * it is believed only hop by hop from the socket inwards, and only while the hop that wrote it is a
 * configured proxy (`TRUSTED_PROXIES`); with none configured the socket's peer is the client. The web
 * entry stamps the answer on every request as `x-fairlane-client-ip`, after removing whatever the
 * client sent under that name, and everything downstream (the auth throttle, better-auth's own
 * limiter and session records) reads only that header.
 */
export const CLIENT_ADDRESS_HEADER = 'x-fairlane-client-ip'

/** Says whether the hop at `address` (0: the socket's peer) is a proxy whose forwarding we believe. */
export type ProxyTrust = (address: string, hop: number) => boolean

/** From `TRUSTED_PROXIES`' entries (addresses, CIDR ranges, `loopback` …); none: trust no one. */
export function compileProxyTrust(entries: readonly string[]): ProxyTrust {
  if (entries.length === 0) return () => false
  return proxyaddr.compile([...entries])
}

export interface ConnectionFacts {
  /** The socket's peer, as Node reports it (`::ffff:` for IPv4 on a dual-stack socket); absent once closed. */
  socketAddress: string | undefined
  /** Every `X-Forwarded-For` line the request carried. */
  forwardedFor: string | string[] | undefined
}

/** The client's address: the nearest hop, walking `X-Forwarded-For` right to left, that is not a trusted proxy. */
export function clientAddress(facts: ConnectionFacts, trust: ProxyTrust): string | null {
  if (!facts.socketAddress) return null
  const forwarded = Array.isArray(facts.forwardedFor) ? facts.forwardedFor.join(',') : facts.forwardedFor
  // proxy-addr reads exactly these two fields of a request.
  const request = {
    socket: { remoteAddress: facts.socketAddress },
    connection: { remoteAddress: facts.socketAddress },
    headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
  } as unknown as IncomingMessage
  return canonicalAddress(proxyaddr(request, trust))
}

/** One spelling per address: IPv4-mapped IPv6 as IPv4, IPv6 in its short form; garbage as null. */
export function canonicalAddress(address: string): string | null {
  const trimmed = address.trim()
  if (!ipaddr.isValid(trimmed)) return null
  const parsed = ipaddr.process(trimmed)
  return parsed.toString()
}

/** The unit throttles count by: an IPv4 address, or an IPv6 /64 (core's `clientUnitOf`). */
export function throttleUnitOf(address: string | null): string {
  return clientUnitOf(address)
}

/**
 * Replaces whatever the client sent as `x-fairlane-client-ip` with the address `clientAddress` finds,
 * in both of Node's views of the headers (Next.js reads `headers`, the fast path's bridge `rawHeaders`).
 */
export function stampClientAddress(req: IncomingMessage, trust: ProxyTrust): void {
  const address = clientAddress(
    { socketAddress: req.socket?.remoteAddress, forwardedFor: req.headers['x-forwarded-for'] },
    trust,
  )
  const raw = req.rawHeaders
  for (let index = raw.length - 2; index >= 0; index -= 2) {
    if ((raw[index] as string).toLowerCase() === CLIENT_ADDRESS_HEADER) raw.splice(index, 2)
  }
  delete req.headers[CLIENT_ADDRESS_HEADER]
  if (address === null) return
  raw.push(CLIENT_ADDRESS_HEADER, address)
  req.headers[CLIENT_ADDRESS_HEADER] = address
}
