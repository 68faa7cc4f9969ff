import { parseConfig } from '@fairlane/config'
import { describe, expect, it } from 'vitest'
import { MX_PORT_LOCAL, mxModeEnv } from './mx-mode'

describe('pnpm start --mx', () => {
  it('runs the worker in MX mode against the sink’s three receivers, and the schema takes it', () => {
    const { shared, worker } = mxModeEnv({})
    expect(shared).toEqual({
      DELIVERY_MODE: 'mx',
      MX_PORT: String(MX_PORT_LOCAL),
      MAILSINK_RECEIVERS: `127.0.0.10:${MX_PORT_LOCAL}=google,127.0.0.11:${MX_PORT_LOCAL}=microsoft,127.0.0.12:${MX_PORT_LOCAL}=others`,
      SMTP_HELO_NAME: 'mta.fairlane.localhost',
    })
    const config = parseConfig({ ...shared, ...worker })
    expect(config.DELIVERY_MODE).toBe('mx')
    expect(config.MX_ALLOW_PRIVATE).toBe(true)
    expect(config.MAILSINK_RECEIVERS.map((receiver) => receiver.name)).toEqual([
      'google',
      'microsoft',
      'others',
    ])
    // The web process runs NODE_ENV=production: it gets the shared part only, which production takes.
    expect(() =>
      parseConfig({
        ...shared,
        NODE_ENV: 'production',
        SESSION_SECRET: 's'.repeat(32),
        UNSUBSCRIBE_SECRET: 'u'.repeat(32),
        DKIM_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      }),
    ).not.toThrow()
  })

  it('keeps what the caller set', () => {
    const { shared, worker } = mxModeEnv({
      MX_PORT: '3025',
      SMTP_HELO_NAME: 'mx.example.test',
      MX_ALLOW_PRIVATE: 'false',
    })
    expect(shared.MX_PORT).toBe('3025')
    expect(shared.MAILSINK_RECEIVERS).toContain('127.0.0.10:3025=google')
    expect(shared.SMTP_HELO_NAME).toBe('mx.example.test')
    expect(worker.MX_ALLOW_PRIVATE).toBe('false')
  })
})
