import { createServer, type Server, type Socket } from 'node:net'
import { SMTPServer, type SMTPServerOptions } from 'smtp-server'

/** What a receiver saw: each connection's source address, each message's envelope and bytes. */
export interface RecordingReceiver {
  connections: Array<{ remoteAddress: string }>
  /** Sessions that ended (QUIT or a closed connection). */
  readonly closed: number
  messages: Array<{ from: string; to: string[]; raw: string; secure: boolean }>
  close(): Promise<void>
}

/**
 * A real SMTP server (smtp-server, as the sink uses) that records who connected and what arrived:
 * the sink keeps no source address. `tls` offers STARTTLS with that key and certificate (plus any
 * other TLS option, such as a `maxVersion` no client accepts, to make the handshake fail).
 * `refuseRecipients` answers RCPT TO for those addresses with the given reply (`450 4.2.1 …`).
 */
export async function startRecordingReceiver(
  host: string,
  port: number,
  options: {
    tls?: Pick<SMTPServerOptions, 'key' | 'cert'> & Record<string, unknown>
    refuseRecipients?: Record<string, string>
  } = {},
): Promise<RecordingReceiver> {
  const { tls, refuseRecipients = {} } = options
  const connections: RecordingReceiver['connections'] = []
  const messages: RecordingReceiver['messages'] = []
  let closed = 0
  const server = new SMTPServer({
    authOptional: true,
    disableReverseLookup: true,
    logger: false,
    ...(tls ? tls : { disabledCommands: ['STARTTLS'] }),
    onConnect(session, callback) {
      connections.push({ remoteAddress: session.remoteAddress })
      callback()
    },
    onClose() {
      closed += 1
    },
    onRcptTo(address, _session, callback) {
      const reply = refuseRecipients[address.address]
      if (reply === undefined) {
        callback()
        return
      }
      callback(Object.assign(new Error(reply.slice(4)), { responseCode: Number(reply.slice(0, 3)) }))
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          raw: Buffer.concat(chunks).toString(),
          secure: session.secure,
        })
        callback(null, 'OK: recorded')
      })
    },
  })
  // A client's reset or a failed handshake is the test's subject, not a crash.
  server.on('error', () => {})
  await listen(server.server, host, port)
  return {
    connections,
    messages,
    get closed() {
      return closed
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        for (const connection of server.connections) connection._socket.destroy()
      }),
  }
}

/** A TCP server that does something scripted with each connection (never answer, answer once). */
export interface ScriptedServer {
  accepted: number
  close(): Promise<void>
}

/** Accepts connections and says nothing: a host that hangs at the greeting. */
export function startSilentServer(host: string, port: number): Promise<ScriptedServer> {
  return startScriptedServer(host, port, () => {})
}

/** Greets every connection with `reply` and hangs up: a host throttling at the door. */
export function startGreetingReplyServer(host: string, port: number, reply: string): Promise<ScriptedServer> {
  return startScriptedServer(host, port, (socket) => socket.end(`${reply}\r\n`))
}

async function startScriptedServer(
  host: string,
  port: number,
  onConnection: (socket: Socket) => void,
): Promise<ScriptedServer> {
  const sockets = new Set<Socket>()
  const state = { accepted: 0 }
  const server = createServer((socket) => {
    state.accepted += 1
    sockets.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => sockets.delete(socket))
    onConnection(socket)
  })
  await listen(server, host, port)
  return {
    get accepted() {
      return state.accepted
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        for (const socket of sockets) socket.destroy()
      }),
  }
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
}
