import { isIP } from 'node:net'
import { type HandOff, type OutgoingMail, SigningFailedError } from '@fairlane/core/delivery'
import {
  BODY_HANDOFF,
  installBodyHandoff,
  installDkimSignatureCheck,
  type OutgoingMessage,
  outgoingMessage,
} from '@fairlane/mail'
import { PermanentSendError, TransientSendError } from '@fairlane/mail/smtp-errors'
import nodemailer, { type SendMailOptions } from 'nodemailer'
import { ConnectionPool, type MxTls, type MxTlsPolicy } from './connection-pool'
import { AttemptFailure, createAttemptTransport, MX_ATTEMPT, type MxAttemptRequest } from './mx-attempt'
import type { MxAnswer, MxHost, MxResolver } from './resolve'
import {
  type MxAttempt,
  type MxFailureDetails,
  messageOf,
  toMxSendFailure,
  withDetails,
} from './smtp-failure'

export type { MxTls, MxTlsPolicy } from './connection-pool'
export type { MxAnswer, MxHost, MxResolver } from './resolve'

export interface MxTransportOptions {
  resolver: MxResolver
  /** Loopback, private, link-local and other non-public addresses (`isPrivateAddress`). */
  isPrivate: (address: string) => boolean
  /** `MX_ALLOW_PRIVATE`: MX hosts may resolve to such addresses (development and tests). */
  allowPrivate: boolean
  /** `MX_PORT`. */
  port: number
  /** `SMTP_HELO_NAME`: announced in EHLO. */
  heloName: string
  /** `MX_TLS`; see `MxTlsPolicy`. */
  tls: MxTlsPolicy
  /** Open connections per (egress address, MX address). */
  connectionsPerHost: number
  /** Messages one connection carries before it is replaced. */
  messagesPerConnection: number
  timeouts: { connectionMs: number; greetingMs: number; socketMs: number }
  /** An idle connection is closed after this long. Default 30 s. */
  idleConnectionMs?: number
  /** (egress, address) pools kept at most. Default 10,000. */
  maxPools?: number
  /**
   * Addresses tried per message, over all its MX hosts (Postfix's smtp_mx_address_limit): a domain
   * with twenty dead MX hosts must not hold the send for twenty connection timeouts. Default 5.
   */
  maxAddressesPerMessage?: number
  /** Extra trusted certificate authorities (PEM) for `tls: 'verify'`; for tests. */
  trustedCertificates?: string[]
}

/** Where a message leaves from; chosen by the caller (the shaping per egress address and provider). */
export interface MxRoute {
  /** The local source address (one of `EGRESS_ADDRESSES`); undefined: the OS picks. */
  egressAddress?: string | undefined
  /** The send's deadline: aborts the wait for a connection and the session in flight. */
  signal?: AbortSignal | undefined
  /** The receiving provider's connection limits (the rules file's); absent: the transport's own. */
  limits?: { connections: number; messagesPerConnection: number } | undefined
}

/** The receiving host accepted the message: which one, and under which TLS. */
export interface MxHandOff extends HandOff {
  /** The MX host's name (the domain itself for an implicit MX). */
  host: string
  /** The address connected to. */
  address: string
  tls: MxTls
  /**
   * Set when the message went in plain text although the policy would have used TLS: the host
   * offered STARTTLS and the handshake failed (`opportunistic` only), with why.
   */
  tlsFallback?: string
}

export interface MxTransport {
  /**
   * Delivers one message to its recipient domain's MX hosts, in preference order. Rejects with an
   * `MxSendFailure`: `TransientSendError`, `PermanentSendError` or `OutcomeUnknownSendError`
   * carrying `smtp` (phase, reply, every address tried); or `SigningFailedError` (nothing sent).
   */
  send(mail: OutgoingMail, route?: MxRoute): Promise<MxHandOff>
  /** Closes every pooled connection. */
  close(): void
}

/**
 * The transport that delivers to the recipient domain's own MX hosts (`DELIVERY_MODE=mx`). The
 * rules, in order: a null MX (RFC 7505) or a domain that does not exist fails the message; a DNS
 * failure keeps it waiting; each MX host's addresses are tried in preference order, and a failure
 * before the host said anything about the message (refused, timed out, dropped, a bad greeting, a
 * failed STARTTLS under `verify`) moves on to the next address, while a reply to the envelope or the
 * data decides. A host that took the body and then went silent leaves the outcome unknown: no other
 * host is tried, since the first may have the message.
 */
export function createMxTransport(options: MxTransportOptions): MxTransport {
  const pool = new ConnectionPool({
    port: options.port,
    heloName: options.heloName,
    connectionsPerHost: options.connectionsPerHost,
    messagesPerConnection: options.messagesPerConnection,
    connectionTimeoutMs: options.timeouts.connectionMs,
    greetingTimeoutMs: options.timeouts.greetingMs,
    socketTimeoutMs: options.timeouts.socketMs,
    idleMs: options.idleConnectionMs ?? 30_000,
    maxPools: options.maxPools ?? 10_000,
    trustedCertificates: options.trustedCertificates,
  })
  const mailer = nodemailer.createTransport(createAttemptTransport(pool))
  // The signature check first: the hand-off hook must wrap the stream the socket reads.
  installDkimSignatureCheck(mailer)
  installBodyHandoff(mailer)
  const maxAddresses = options.maxAddressesPerMessage ?? 5

  async function send(mail: OutgoingMail, route: MxRoute = {}): Promise<MxHandOff> {
    const domain = recipientDomain(mail.envelope.to)
    const answer = await lookUp(options.resolver, domain)
    const fail = (error: TransientSendError | PermanentSendError, attempts: MxAttempt[] = []) =>
      withDetails(error, { domain: answer.domain, phase: 'dns', attempts })
    switch (answer.kind) {
      case 'null-mx':
        throw fail(
          permanent(`${answer.domain} accepts no mail: it publishes a null MX record (RFC 7505)`, '5.1.10'),
        )
      case 'no-such-domain':
        throw fail(
          permanent(`the recipient domain ${answer.domain} does not exist: ${answer.reason}`, '5.1.2'),
        )
      case 'temporary':
        throw fail(transient(`DNS lookup for ${answer.domain} failed: ${answer.reason}`))
      case 'hosts':
        break
    }
    const { candidates, refused } = candidatesOf(answer.hosts, options)
    if (candidates.length === 0) {
      if (refused.length > 0) {
        const named = refused.map((attempt) => `${attempt.host} ${attempt.address}`).join(', ')
        throw withDetails(
          permanent(
            `the MX hosts of ${answer.domain} resolve only to private or loopback addresses (${named}); refused unless MX_ALLOW_PRIVATE=true`,
          ),
          { domain: answer.domain, phase: 'policy', attempts: refused },
        )
      }
      throw fail(transient(`no MX host of ${answer.domain} has an address`))
    }
    // A source address reaches only addresses of its own family.
    const family = route.egressAddress === undefined ? 0 : isIP(route.egressAddress)
    const reachable = candidates.filter((candidate) => family === 0 || isIP(candidate.address) === family)
    if (reachable.length === 0) {
      throw fail(
        transient(
          `no MX host of ${answer.domain} has an IPv${family} address for the egress address ${route.egressAddress}`,
        ),
      )
    }
    const message = await prepare(mail, answer.domain)
    return deliver(message, route, answer.domain, reachable.slice(0, maxAddresses), refused)
  }

  /** The message composed (and signed) once for every address tried; a failed signing rejects as it is. */
  async function prepare(mail: OutgoingMail, domain: string): Promise<OutgoingMessage> {
    try {
      return await outgoingMessage(mail)
    } catch (error) {
      if (error instanceof SigningFailedError) throw error
      throw withDetails(transient(`could not build the message: ${messageOf(error)}`, error), {
        domain,
        phase: 'connect',
        attempts: [],
      })
    }
  }

  async function deliver(
    mail: OutgoingMessage,
    route: MxRoute,
    domain: string,
    candidates: Candidate[],
    refused: MxAttempt[],
  ): Promise<MxHandOff> {
    const attempts: MxAttempt[] = [...refused]
    let last: { failure: AttemptFailure; candidate: Candidate } | undefined
    for (const candidate of candidates) {
      const result = await attempt(mail, route, candidate, options.tls)
      if (result.ok) return result.handOff
      let failure = result.failure
      attempts.push(record(candidate, failure))
      if (failure.phase === 'tls' && options.tls === 'opportunistic') {
        // The host offered STARTTLS and the handshake failed: plain text beats not delivering.
        const plain = await attempt(mail, route, candidate, 'plain')
        if (plain.ok) return { ...plain.handOff, tlsFallback: `STARTTLS failed: ${messageOf(failure.cause)}` }
        failure = plain.failure
        attempts.push(record(candidate, failure))
      }
      last = { failure, candidate }
      // A reply about the message, or a body that may have arrived: this host's answer stands.
      if (failure.bodyHandedOff || decidedByReply(failure)) break
      if (route.signal?.aborted) break
    }
    if (!last) throw new Error('unreachable: at least one candidate was tried')
    const { failure, candidate } = last
    const details: MxFailureDetails = {
      domain,
      phase: failure.phase,
      ...(failure.reply ? { reply: failure.reply } : {}),
      host: candidate.host,
      address: candidate.address,
      attempts,
    }
    throw toMxSendFailure(failure.cause, { bodyHandedOff: failure.bodyHandedOff, details })
  }

  async function attempt(
    mail: OutgoingMessage,
    route: MxRoute,
    candidate: Candidate,
    tls: MxTlsPolicy | 'plain',
  ): Promise<{ ok: true; handOff: MxHandOff } | { ok: false; failure: AttemptFailure }> {
    let bodyHandedOff = false
    const request: MxAttemptRequest = {
      target: {
        host: candidate.host,
        address: candidate.address,
        egressAddress: route.egressAddress,
        tls,
        ...(route.limits ? { limits: route.limits } : {}),
      },
      signal: route.signal,
      bodyHandedOff: () => bodyHandedOff,
    }
    try {
      const options = {
        ...mail,
        [MX_ATTEMPT]: request,
        [BODY_HANDOFF]: () => {
          bodyHandedOff = true
        },
      } as SendMailOptions
      const info = (await mailer.sendMail(options)) as unknown as { response?: unknown; tls: MxTls }
      return {
        ok: true,
        handOff: {
          host: candidate.host,
          address: candidate.address,
          tls: info.tls,
          ...(typeof info.response === 'string' ? { response: info.response } : {}),
        },
      }
    } catch (error) {
      // Checked before any byte of the message went out; no other host would do better.
      if (error instanceof SigningFailedError) throw error
      if (error instanceof AttemptFailure) return { ok: false, failure: error }
      // Anything else failed before a connection was asked for (nodemailer building the message).
      throw withDetails(transient(`could not build the message: ${messageOf(error)}`, error), {
        domain: recipientDomain(mail.envelope.to),
        phase: 'connect',
        attempts: [],
      })
    }
  }

  return { send, close: () => pool.close() }
}

interface Candidate {
  host: string
  address: string
}

/** Every (host, address) in preference order; private ones set aside unless allowed. */
function candidatesOf(
  hosts: MxHost[],
  options: Pick<MxTransportOptions, 'allowPrivate' | 'isPrivate'>,
): { candidates: Candidate[]; refused: MxAttempt[] } {
  const candidates: Candidate[] = []
  const refused: MxAttempt[] = []
  for (const { host, addresses } of hosts) {
    for (const address of addresses) {
      if (!options.allowPrivate && options.isPrivate(address)) {
        refused.push({
          host,
          address,
          phase: 'policy',
          message: `${host} resolves to the private or loopback address ${address}; refused unless MX_ALLOW_PRIVATE=true`,
        })
      } else {
        candidates.push({ host, address })
      }
    }
  }
  return { candidates, refused }
}

/** A reply to the envelope or the data is the host's decision about this message. */
function decidedByReply(failure: AttemptFailure): boolean {
  return failure.reply !== undefined && (failure.phase === 'envelope' || failure.phase === 'data')
}

function record(candidate: Candidate, failure: AttemptFailure): MxAttempt {
  return {
    host: candidate.host,
    address: candidate.address,
    phase: failure.phase,
    ...(failure.reply ? { reply: failure.reply } : {}),
    message: messageOf(failure.cause),
  }
}

async function lookUp(resolver: MxResolver, domain: string): Promise<MxAnswer> {
  try {
    return await resolver.resolve(domain)
  } catch (error) {
    // A resolver that throws instead of answering `temporary`: the message waits all the same.
    return { kind: 'temporary', domain, reason: messageOf(error) }
  }
}

/** The domain of the envelope recipient (one recipient per message in Fairlane). */
function recipientDomain(address: string): string {
  const at = address.lastIndexOf('@')
  const domain = at === -1 ? '' : address.slice(at + 1).trim()
  if (domain === '') {
    throw withDetails(
      new PermanentSendError({
        message: `the recipient "${address}" has no domain`,
        suppressRecipient: false,
      }),
      { domain: '', phase: 'dns', attempts: [] },
    )
  }
  return domain.toLowerCase()
}

function permanent(message: string, enhancedCode?: string): PermanentSendError {
  return new PermanentSendError({
    message,
    suppressRecipient: enhancedCode === '5.1.10' || enhancedCode === '5.1.2',
    ...(enhancedCode ? { enhancedCode } : {}),
  })
}

function transient(message: string, cause?: unknown): TransientSendError {
  return new TransientSendError(
    { message, suppressRecipient: false },
    cause === undefined ? undefined : { cause },
  )
}

export type { MxAttempt, MxFailureDetails, MxSendFailure, SmtpPhase, SmtpReply } from './smtp-failure'
export { isMxSendFailure } from './smtp-failure'
