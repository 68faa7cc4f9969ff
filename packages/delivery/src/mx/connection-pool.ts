import { TLSSocket } from 'node:tls'
import SMTPConnection from 'nodemailer/lib/smtp-connection'
import type { SmtpPhase } from './smtp-failure'

/**
 * Which TLS a message travelled under: `verified` (STARTTLS, the certificate valid for the MX host
 * name), `unverified` (STARTTLS, the certificate not checked or not valid), `none` (plain text).
 */
export type MxTls = 'verified' | 'unverified' | 'none'

/**
 * STARTTLS towards MX hosts (`MX_TLS`). `opportunistic`: used when the host offers it, the certificate
 * not checked (Postfix's `may`: most MX certificates do not match their host names, and refusing them
 * would only push the mail to plain text); a failed handshake is retried once in plain text. `verify`:
 * required, with a certificate valid for the MX host name; a host without it is skipped, never plain.
 * `none`: never.
 */
export type MxTlsPolicy = 'opportunistic' | 'verify' | 'none'

/** One remote address as one pool serves it: the MX host's name is its TLS server name. */
export interface PoolTarget {
  host: string
  address: string
  egressAddress: string | undefined
  /** `plain`: the plain-text retry after a failed STARTTLS handshake under `opportunistic`. */
  tls: MxTlsPolicy | 'plain'
  /** The receiving provider's own bounds for this host; absent: the pool's options. */
  limits?: { connections: number; messagesPerConnection: number } | undefined
}

export interface ConnectionPoolOptions {
  port: number
  heloName: string
  /** Open connections per (egress address, remote address), in use, idle or connecting. */
  connectionsPerHost: number
  /** Messages one connection carries before it is closed (QUIT) and replaced. */
  messagesPerConnection: number
  connectionTimeoutMs: number
  greetingTimeoutMs: number
  socketTimeoutMs: number
  /** An idle connection is closed (QUIT) after this long; a pool with none left is forgotten. */
  idleMs: number
  /** Pools kept at most; beyond it the least recently used idle pool is closed. */
  maxPools: number
  /** Extra trusted certificate authorities for `verify` (tests; none in production). */
  trustedCertificates?: string[] | undefined
}

/** An open SMTP session, greeted (and upgraded when it could be), held for one message. */
export interface PooledConnection {
  readonly smtp: SMTPConnection
  readonly tls: MxTls
  /** Carried a message before: a failure without a reply may be the server's idle close. */
  readonly reused: boolean
  /**
   * Gives the connection back: kept for the next message when `reusable` and under its message
   * bound, otherwise closed. Giving it back twice is harmless.
   */
  release(reusable: boolean): void
}

/** A failed connect, with where it stopped: TCP, the greeting and EHLO, or STARTTLS. */
export class ConnectFailure extends Error {
  override readonly name = 'ConnectFailure'
  constructor(
    readonly phase: Extract<SmtpPhase, 'connect' | 'greeting' | 'tls'>,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause })
  }
}

interface Entry {
  smtp: SMTPConnection
  tls: MxTls
  messages: number
  idleTimer: NodeJS.Timeout | undefined
  closed: boolean
}

/**
 * SMTP connections to MX hosts, pooled per (egress address, remote address): a receiver counts
 * connections per source address, and several messages per connection spare it (and us) a greeting
 * round trip each. Built on nodemailer's `SMTPConnection` rather than its pooled transport, whose pool
 * hides which connection carried a message (so which TLS it had) and retries refused connections on
 * the same address on its own, where MX delivery wants the next host.
 */
export class ConnectionPool {
  private readonly pools = new Map<string, AddressPool>()

  constructor(private readonly options: ConnectionPoolOptions) {}

  /** Waits for a free connection to the target (opening one when under the bound). */
  acquire(target: PoolTarget, signal?: AbortSignal): Promise<PooledConnection> {
    const key = [target.egressAddress ?? '', target.address, target.host, target.tls].join('|')
    let pool = this.pools.get(key)
    if (pool) {
      // Map order is insertion order: re-inserting keeps the least recently used first.
      this.pools.delete(key)
    } else {
      pool = new AddressPool(target, this.options)
      this.evictIdlePools()
    }
    this.pools.set(key, pool)
    if (target.limits) pool.limits = target.limits
    return pool.acquire(signal)
  }

  /** Closes every connection (QUIT to the idle ones); pools in use close theirs as they come back. */
  close(): void {
    for (const pool of this.pools.values()) pool.close()
    this.pools.clear()
  }

  get size(): number {
    return this.pools.size
  }

  private evictIdlePools(): void {
    for (const [key, pool] of this.pools) {
      if (this.pools.size < this.options.maxPools) return
      if (!pool.busy) {
        pool.close()
        this.pools.delete(key)
      }
    }
  }
}

class AddressPool {
  private readonly idle: Entry[] = []
  private readonly entries = new Set<Entry>()
  private readonly waiting: Array<() => void> = []
  private opening = 0
  private closed = false
  /** The provider's bounds for this host, as the latest send named them. */
  limits: { connections: number; messagesPerConnection: number }

  constructor(
    private readonly target: PoolTarget,
    private readonly options: ConnectionPoolOptions,
  ) {
    this.limits = target.limits ?? {
      connections: options.connectionsPerHost,
      messagesPerConnection: options.messagesPerConnection,
    }
  }

  /** Connections in use or being opened (idle ones do not count). */
  get busy(): boolean {
    return this.opening > 0 || this.entries.size > this.idle.length || this.waiting.length > 0
  }

  async acquire(signal?: AbortSignal): Promise<PooledConnection> {
    for (;;) {
      signal?.throwIfAborted()
      if (this.closed) throw new ConnectFailure('connect', new Error('the MX transport was closed'))
      const entry = this.idle.pop()
      if (entry) {
        clearTimeout(entry.idleTimer)
        return this.lease(entry)
      }
      if (this.entries.size + this.opening < this.limits.connections) return this.open(signal)
      await this.waitForRoom(signal)
    }
  }

  private lease(entry: Entry): PooledConnection {
    let held = true
    return {
      smtp: entry.smtp,
      tls: entry.tls,
      reused: entry.messages > 0,
      release: (reusable) => {
        if (!held) return
        held = false
        this.release(entry, reusable)
      },
    }
  }

  private release(entry: Entry, reusable: boolean): void {
    entry.messages += 1
    if (reusable && !entry.closed && entry.messages < this.limits.messagesPerConnection) {
      this.idle.push(entry)
      entry.idleTimer = setTimeout(() => this.retire(entry, 'quit'), this.options.idleMs)
      entry.idleTimer.unref()
    } else {
      this.retire(entry, reusable ? 'quit' : 'close')
    }
    this.wakeOne()
  }

  close(): void {
    this.closed = true
    for (const entry of [...this.entries]) this.retire(entry, this.idle.includes(entry) ? 'quit' : 'close')
    for (const wake of this.waiting.splice(0)) wake()
  }

  private async open(signal?: AbortSignal): Promise<PooledConnection> {
    this.opening += 1
    try {
      const { smtp, tls } = await connect(this.target, this.options, signal)
      if (this.closed) {
        smtp.quit()
        throw new ConnectFailure('connect', new Error('the MX transport was closed'))
      }
      const entry: Entry = { smtp, tls, messages: 0, idleTimer: undefined, closed: false }
      this.entries.add(entry)
      // The server may end an idle session (its own timeout) or fail it: the entry leaves the pool.
      smtp.once('end', () => this.retire(entry, 'gone'))
      return this.lease(entry)
    } finally {
      this.opening -= 1
      this.wakeOne()
    }
  }

  private retire(entry: Entry, how: 'quit' | 'close' | 'gone'): void {
    if (entry.closed) return
    entry.closed = true
    clearTimeout(entry.idleTimer)
    this.entries.delete(entry)
    const index = this.idle.indexOf(entry)
    if (index !== -1) this.idle.splice(index, 1)
    if (how === 'quit') entry.smtp.quit()
    else if (how === 'close') entry.smtp.close()
    this.wakeOne()
  }

  private waitForRoom(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const index = this.waiting.indexOf(wake)
        if (index !== -1) this.waiting.splice(index, 1)
        reject(signal?.reason)
      }
      const wake = () => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }
      this.waiting.push(wake)
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  private wakeOne(): void {
    this.waiting.shift()?.()
  }
}

/**
 * Opens one session: TCP from the egress address, the greeting, EHLO, STARTTLS as the policy says.
 * Rejects with `ConnectFailure` naming the phase it stopped in, also when `signal` (the deadline of
 * the send that asked for it) fires first: the phase timeouts alone could add up past the deadline.
 */
function connect(
  target: PoolTarget,
  options: ConnectionPoolOptions,
  signal: AbortSignal | undefined,
): Promise<{ smtp: SMTPConnection; tls: MxTls }> {
  const smtp = new SMTPConnection({
    host: target.address,
    port: options.port,
    name: options.heloName,
    ...(target.egressAddress === undefined ? {} : { localAddress: target.egressAddress }),
    connectionTimeout: options.connectionTimeoutMs,
    greetingTimeout: options.greetingTimeoutMs,
    socketTimeout: options.socketTimeoutMs,
    ...tlsOptions(target, options),
  })
  return new Promise((resolve, reject) => {
    let settled = false
    const onAbort = () => fail(signal?.reason ?? new Error('the send was aborted'))
    const fail = (error: unknown) => {
      if (settled) return
      settled = true
      signal?.removeEventListener('abort', onAbort)
      reject(new ConnectFailure(connectPhase(smtp, error), error))
      smtp.close()
    }
    if (signal?.aborted) {
      onAbort()
      return
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    // Every error after the connect is the send's to report (its callback gets it too); an
    // EventEmitter without an 'error' listener would throw it instead.
    smtp.on('error', fail)
    smtp.once('end', () => fail(new Error('the server closed the connection before the session was set up')))
    smtp.connect((error?: Error | null) => {
      if (error) {
        fail(error)
        return
      }
      if (settled) return
      settled = true
      signal?.removeEventListener('abort', onAbort)
      resolve({ smtp, tls: tlsOf(smtp, target.tls) })
    })
  })
}

function tlsOptions(target: PoolTarget, options: ConnectionPoolOptions) {
  // The MX host's name, not the address connected to: what a certificate names and SNI selects.
  const servername = target.host
  switch (target.tls) {
    case 'none':
    case 'plain':
      return { ignoreTLS: true }
    case 'verify':
      return {
        requireTLS: true,
        tls: {
          servername,
          rejectUnauthorized: true,
          ...(options.trustedCertificates ? { ca: options.trustedCertificates } : {}),
        },
      }
    case 'opportunistic':
      // A 4xx/5xx to STARTTLS continues in plain text (RFC 3207 §4.1); a failed handshake is an error.
      return { opportunisticTLS: true, tls: { servername, rejectUnauthorized: false } }
  }
}

/**
 * Where a connect stopped. `stage` is `init` until the TCP connection stood; `upgrading` is set
 * while STARTTLS's handshake runs; after both, the greeting or EHLO failed.
 */
function connectPhase(smtp: SMTPConnection, error: unknown): 'connect' | 'greeting' | 'tls' {
  const fields = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown
    command?: unknown
    timeoutType?: unknown
  }
  if (fields.code === 'ETLS' || fields.command === 'STARTTLS' || fields.timeoutType === 'UPGRADE_TIMEOUT')
    return 'tls'
  if ((smtp as { upgrading?: boolean }).upgrading) return 'tls'
  if (smtp.stage === 'init' || fields.timeoutType === 'CONNECT_TIMEOUT') return 'connect'
  return 'greeting'
}

/**
 * The TLS a session ended up with. Under `verify` nodemailer refused any session without a valid
 * certificate, so a secure one is verified. Under `opportunistic` the certificate was not enforced:
 * the TLS socket's own `authorized` (chain and host name checked by Node all the same) says whether
 * it would have passed; nodemailer keeps that socket in `_socket`, so when it cannot be read the
 * session counts as `unverified`, which never claims more than is known.
 */
function tlsOf(smtp: SMTPConnection, policy: PoolTarget['tls']): MxTls {
  if (!smtp.secure) return 'none'
  if (policy === 'verify') return 'verified'
  const socket = (smtp as unknown as { _socket?: unknown })._socket
  return socket instanceof TLSSocket && socket.authorized ? 'verified' : 'unverified'
}
