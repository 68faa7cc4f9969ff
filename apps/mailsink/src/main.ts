import { LOG_ERROR_SERIALIZERS, loadConfig, sinkDnsPort, stopWhenStdinCloses } from '@fairlane/config'
import pino from 'pino'
import { receiverDomains, receiverMxHost } from './receiver-zone'
import { ListenError, type MailSink, startMailSink } from './sink'

const config = loadConfig()
stopWhenStdinCloses(config)
const logger = pino({
  level: config.LOG_LEVEL,
  base: { service: 'mailsink' },
  serializers: LOG_ERROR_SERIALIZERS,
})

const SETTING = {
  smtp: 'MAILSINK_SMTP_PORT',
  http: 'MAILSINK_HTTP_PORT',
  dns: 'MAILSINK_DNS_PORT',
  receiver: 'MAILSINK_RECEIVERS',
} as const

let sink: MailSink
try {
  sink = await startMailSink({
    host: config.HOST,
    smtpPort: config.MAILSINK_SMTP_PORT,
    httpPort: config.MAILSINK_HTTP_PORT,
    maxMessages: config.MAILSINK_MAX_MESSAGES,
    authCheckEvery: config.MAILSINK_AUTH_CHECK_EVERY,
    keep: config.MAILSINK_STORE,
    dnsPort: sinkDnsPort(config),
    dnsServers: config.DNS_SERVERS,
    inboundSmtpUrl: config.INBOUND_SMTP_URL,
    receivers: config.MAILSINK_RECEIVERS,
    receiverPort: config.MAILSINK_SMTP_PORT,
    logger,
  })
} catch (error) {
  // The usual cause is a second sink (or a forgotten one) on the same port: say so in one line
  // with the setting to change, rather than a stack trace.
  if (!(error instanceof ListenError)) throw error
  const setting = SETTING[error.service]
  console.error(
    error.code === 'EADDRINUSE'
      ? `mailsink: port ${error.service === 'receiver' ? `${error.host}:` : ''}${error.port} is already in use (${setting}${error.service === 'receiver' && config.HOST !== '127.0.0.1' ? `; with HOST=${config.HOST} the sink's own listener may hold it: give the receivers a port of their own` : ''})`
      : `mailsink: cannot listen on ${error.host}:${error.port} (${setting}): ${error.code}`,
  )
  process.exit(1)
}

// The platform's own records, as production publishes them: the SPF of its return-path and bounce
// hosts (a tenant's return-path CNAME points at RETURN_PATH_HOST), allowing mail from this machine,
// so signed mail sent through the local stack shows SPF as well as DKIM.
for (const host of new Set([config.RETURN_PATH_HOST, config.BOUNCE_DOMAIN])) {
  sink.dns?.publish({ type: 'TXT', name: host, value: 'v=spf1 ip4:127.0.0.0/8 ip6:::1 ~all' })
}

// Scripts wait for this line to know the sink is up, and people click the link.
console.log(
  `mailsink: SMTP ${hostPort(config.HOST, sink.smtpPort)}, inbox http://${hostPort(config.HOST, sink.httpPort)}${sink.dns ? `, DNS ${sink.dns.address} (udp)` : ''}`,
)

for (const receiver of sink.receivers) {
  console.log(
    `mailsink: receiver ${receiver.name} SMTP ${hostPort(receiver.address, receiver.port)}, MX ${receiverMxHost(receiver)} for ${receiverDomains(receiver).join(', ')}`,
  )
}

function shutdown(signal: NodeJS.Signals): void {
  logger.info({ signal }, 'shutting down')
  // A stuck close (a client holding its connection open) must not turn a stop into a hang: leave,
  // with a failure code, within the same bound the worker and web keep.
  setTimeout(() => {
    console.error(`mailsink: forced exit: shutdown took longer than ${config.SHUTDOWN_FORCE_EXIT_MS} ms`)
    process.exit(1)
  }, config.SHUTDOWN_FORCE_EXIT_MS).unref()
  sink.close().then(
    () => process.exit(0),
    (error: unknown) => {
      logger.error({ err: error }, 'shutdown failed')
      process.exit(1)
    },
  )
}
// once: a second Ctrl-C falls through to the default handler and kills the process at once.
process.once('SIGTERM', shutdown)
process.once('SIGINT', shutdown)

/** IPv6 literals need brackets in host:port and URLs. */
function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`
}
