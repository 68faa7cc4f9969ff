import { connect } from 'node:tls'

export interface SubmitReply {
  code: number
  text: string
}

/**
 * One SMTP submission connection over implicit TLS (the self-signed pair `pnpm start` makes, not
 * verified), driven by hand so the time from the end of DATA to the reply is measured on its own.
 */
export interface SubmitConnection {
  /** MAIL, RCPT, DATA and the message; `dataToReplyMs` from the final `.` to the reply. */
  send(message: { from: string; to: string; raw: string }): Promise<SubmitReply & { dataToReplyMs: number }>
  close(): void
}

export async function openSubmitConnection(port: number, apiKey: string): Promise<SubmitConnection> {
  const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false })
  let buffer = ''
  let lines: string[] = []
  const waiting: Array<(reply: SubmitReply) => void> = []
  const ready: SubmitReply[] = []
  socket.setEncoding('utf8')
  socket.on('data', (chunk: string) => {
    buffer += chunk
    for (let end = buffer.indexOf('\r\n'); end !== -1; end = buffer.indexOf('\r\n')) {
      const line = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      lines.push(line.slice(4))
      if (line[3] === '-') continue
      const reply = { code: Number(line.slice(0, 3)), text: lines.join(' ') }
      lines = []
      const next = waiting.shift()
      if (next) next(reply)
      else ready.push(reply)
    }
  })
  socket.on('error', () => {})
  socket.on('close', () => {
    for (const next of waiting.splice(0)) next({ code: 0, text: 'connection closed' })
  })
  const read = () =>
    new Promise<SubmitReply>((resolve) => {
      const reply = ready.shift()
      if (reply) resolve(reply)
      else waiting.push(resolve)
    })
  const command = (line: string) => {
    socket.write(`${line}\r\n`)
    return read()
  }
  const expect = (reply: SubmitReply, code: number, what: string) => {
    if (reply.code !== code) throw new Error(`${what}: ${reply.code} ${reply.text}`)
  }
  expect(await read(), 220, 'greeting')
  expect(await command('EHLO bench.example'), 250, 'EHLO')
  expect(await command(`AUTH PLAIN ${Buffer.from(`\0bench\0${apiKey}`).toString('base64')}`), 235, 'AUTH')
  return {
    async send(message) {
      const mail = await command(`MAIL FROM:<${message.from}>`)
      if (mail.code !== 250) return { ...mail, dataToReplyMs: 0 }
      const rcpt = await command(`RCPT TO:<${message.to}>`)
      if (rcpt.code !== 250) {
        await command('RSET')
        return { ...rcpt, dataToReplyMs: 0 }
      }
      const data = await command('DATA')
      if (data.code !== 354) return { ...data, dataToReplyMs: 0 }
      socket.write(message.raw)
      const startedAt = performance.now()
      const reply = await command('.')
      return { ...reply, dataToReplyMs: performance.now() - startedAt }
    },
    close: () => socket.destroy(),
  }
}
