/**
 * `pnpm start --mx`: the platform in MX mode on one machine. The mail sink plays three receiving
 * providers on loopback addresses (google, microsoft, others; `MAILSINK_RECEIVERS`) and publishes
 * their MX records on its DNS server (`DNS_SERVERS` of the worker already points there), so mail to
 * `someone@gmail.test` goes to "google" by an MX lookup, as it would on the internet. What the caller
 * set wins. The loopback MX hosts need `MX_ALLOW_PRIVATE=true`, given to the worker alone: the web
 * process runs with NODE_ENV=production, which refuses it.
 */
export const MX_PORT_LOCAL = 2625

export function mxModeEnv(base: NodeJS.ProcessEnv): {
  shared: Record<string, string>
  worker: Record<string, string>
} {
  const port = base.MX_PORT || String(MX_PORT_LOCAL)
  return {
    shared: {
      DELIVERY_MODE: 'mx',
      MX_PORT: port,
      MAILSINK_RECEIVERS:
        base.MAILSINK_RECEIVERS ||
        `127.0.0.10:${port}=google,127.0.0.11:${port}=microsoft,127.0.0.12:${port}=others`,
      SMTP_HELO_NAME: base.SMTP_HELO_NAME || 'mta.fairlane.localhost',
    },
    worker: { MX_ALLOW_PRIVATE: base.MX_ALLOW_PRIVATE || 'true' },
  }
}

/** The ready banner's lines for MX mode. */
export function mxHelpLines(env: NodeJS.ProcessEnv): string[] {
  return [
    `  MX mode        DELIVERY_MODE=mx: mail goes to each domain's MX host, found through the sink's DNS`,
    `                 receivers ${env.MAILSINK_RECEIVERS} (try to: user@gmail.test, user@outlook.test, user@others.test)`,
  ]
}
