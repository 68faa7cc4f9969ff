import { connect as connectTcp, type Socket } from 'node:net'
import { connect as connectTls, type TLSSocket } from 'node:tls'

export interface SmtpReply {
  code: number
  text: string
}

/**
 * A hand-driven SMTP client for what nodemailer will not do on purpose (DATA before RCPT, BDAT, 51
 * recipients, bare LF): one reply per command, multi-line replies joined.
 */
export interface SmtpSession {
  greeting: SmtpReply
  command(line: string): Promise<SmtpReply>
  /** Writes bytes as they are (DATA content) and reads one reply. */
  raw(data: string | Buffer): Promise<SmtpReply>
  /** EHLO then AUTH PLAIN with this password. */
  login(password: string): Promise<SmtpReply>
  close(): void
}

export async function openSmtpSession(
  port: number,
  options: { tls?: boolean; ca?: Buffer } = {},
): Promise<SmtpSession> {
  const socket: Socket | TLSSocket = options.tls
    ? connectTls({
        host: '127.0.0.1',
        port,
        ...(options.ca ? { ca: options.ca, servername: 'localhost' } : { rejectUnauthorized: false }),
      })
    : connectTcp({ host: '127.0.0.1', port })
  let buffer = ''
  const waiting: Array<(reply: SmtpReply) => void> = []
  const replies: SmtpReply[] = []
  let lines: string[] = []
  socket.setEncoding('latin1')
  socket.on('data', (chunk: string) => {
    buffer += chunk
    let end = buffer.indexOf('\r\n')
    while (end !== -1) {
      const line = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      lines.push(line.slice(4))
      if (line[3] !== '-') {
        const reply = { code: Number(line.slice(0, 3)), text: lines.join('\n') }
        lines = []
        const next = waiting.shift()
        if (next) next(reply)
        else replies.push(reply)
      }
      end = buffer.indexOf('\r\n')
    }
  })
  socket.on('error', () => {})
  socket.on('close', () => {
    for (const next of waiting.splice(0)) next({ code: 0, text: 'connection closed' })
  })
  const read = () =>
    new Promise<SmtpReply>((resolve) => {
      const ready = replies.shift()
      if (ready) resolve(ready)
      else waiting.push(resolve)
    })
  const greeting = await read()
  const session: SmtpSession = {
    greeting,
    command: (line) => {
      socket.write(`${line}\r\n`)
      return read()
    },
    raw: (data) => {
      socket.write(data)
      return read()
    },
    async login(password) {
      await session.command('EHLO client.example')
      return session.command(`AUTH PLAIN ${Buffer.from(`\0smtp\0${password}`).toString('base64')}`)
    },
    close: () => socket.destroy(),
  }
  return session
}
