import { isIPv4 } from 'node:net'

/** One receiving mail server the sink plays (`MAILSINK_RECEIVERS`). */
export interface MailSinkReceiver {
  /** The name the inbox, the HTTP API and the DNS defaults use, e.g. `google`. */
  name: string
  /** The IPv4 address it listens on, e.g. `127.0.0.10` (any of 127.0.0.0/8 works on Linux). */
  address: string
  /** Its SMTP port; absent: the sink's `MAILSINK_SMTP_PORT`. */
  port?: number
}

export type ParsedReceivers = { ok: true; value: MailSinkReceiver[] } | { ok: false; message: string }

// address[:port][=name]; a name is what a DNS label may be, so it can name an MX host.
const ENTRY = /^(\d{1,3}(?:\.\d{1,3}){3})(?::(\d{1,5}))?(?:=([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?))?$/

/**
 * Reads `MAILSINK_RECEIVERS`: comma-separated `address[:port][=name]`, e.g.
 * `127.0.0.10=google,127.0.0.11=microsoft,127.0.0.12:2600=others`. Without a name the receiver is
 * named by its address. Names and address:port pairs must be unique (two receivers may share a port
 * number on different addresses, as real MX hosts all listen on 25).
 */
export function parseMailSinkReceivers(text: string): ParsedReceivers {
  const receivers: MailSinkReceiver[] = []
  const entries = text
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '')
  for (const entry of entries) {
    const found = ENTRY.exec(entry)
    const address = found?.[1]
    if (!found || !address || !isIPv4(address)) {
      return fail(
        `expected address[:port][=name] entries such as 127.0.0.10=google,127.0.0.11:2600=microsoft; got ${JSON.stringify(entry)}`,
      )
    }
    const port = found[2] === undefined ? undefined : Number(found[2])
    if (port !== undefined && (port < 1 || port > 65535)) {
      return fail(`the port of ${JSON.stringify(entry)} must be between 1 and 65535`)
    }
    const name = found[3] ?? address
    if (receivers.some((receiver) => receiver.name === name)) {
      return fail(`the receiver name ${JSON.stringify(name)} is given twice`)
    }
    if (receivers.some((receiver) => receiver.address === address && receiver.port === port)) {
      return fail(`the receiver address ${address}${port === undefined ? '' : `:${port}`} is given twice`)
    }
    receivers.push(port === undefined ? { name, address } : { name, address, port })
  }
  return { ok: true, value: receivers }
}

function fail(message: string): ParsedReceivers {
  return { ok: false, message }
}
