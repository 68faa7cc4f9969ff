import { hostname } from 'node:os'
import { describe, expect, it } from 'vitest'
import { databaseDirectUrl } from './env'
import { ConfigError, parseConfig } from './load'

/** Random-looking values of the right length, as a production deployment would set them. */
const SESSION = 'session-secret-for-production-0123456789'
const UNSUBSCRIBE = '1:unsubscribe-secret-for-production-0123456789'
const DKIM_KEY = `2:${Buffer.alloc(32, 7).toString('base64')}`

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  throw new Error('expected the environment to be refused')
}

describe('environment schema', () => {
  it('sends session state to DATABASE_DIRECT_URL and turns prepared statements off on request', () => {
    const config = parseConfig({
      DATABASE_URL: 'postgres://app@pgbouncer:6432/fairlane',
      DATABASE_DIRECT_URL: 'postgres://app@postgres:5432/fairlane',
      DATABASE_PREPARE: 'false',
    })
    expect(databaseDirectUrl(config)).toBe('postgres://app@postgres:5432/fairlane')
    expect(config.DATABASE_PREPARE).toBe(false)
    // Unset: the database client follows DATABASE_PREPARE (`createDatabase`'s `pipeline`).
    expect(config.DATABASE_PIPELINE).toBeUndefined()
    expect(parseConfig({ DATABASE_PIPELINE: 'false' }).DATABASE_PIPELINE).toBe(false)
    expect(parseConfig({ DATABASE_PIPELINE: 'true' }).DATABASE_PIPELINE).toBe(true)
  })

  it('reads ATTACHMENT_BLOCKED_EXTENSIONS as a list, unset as core’s default, none as no list', () => {
    expect(parseConfig({}).ATTACHMENT_BLOCKED_EXTENSIONS).toBeUndefined()
    expect(parseConfig({ ATTACHMENT_BLOCKED_EXTENSIONS: '' }).ATTACHMENT_BLOCKED_EXTENSIONS).toBeUndefined()
    expect(
      parseConfig({ ATTACHMENT_BLOCKED_EXTENSIONS: 'EXE, .js,ps1' }).ATTACHMENT_BLOCKED_EXTENSIONS,
    ).toEqual(['exe', 'js', 'ps1'])
    expect(parseConfig({ ATTACHMENT_BLOCKED_EXTENSIONS: 'none' }).ATTACHMENT_BLOCKED_EXTENSIONS).toEqual([])
    expect(problemsOf({ ATTACHMENT_BLOCKED_EXTENSIONS: 'exe,,js' }).join()).toContain(
      'ATTACHMENT_BLOCKED_EXTENSIONS',
    )
  })

  it('gives every variable a working local default', () => {
    const config = parseConfig({})
    expect(config.DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/fairlane')
    expect(config.REDIS_URL).toBe('redis://127.0.0.1:6379')
    expect(databaseDirectUrl(config)).toBe(config.DATABASE_URL)
    expect(config.DATABASE_PREPARE).toBe(true)
    expect(config.SMTP_URL).toBe('smtp://127.0.0.1:2525')
    expect(config.INBOUND_SMTP_URL).toBe('smtp://127.0.0.1:2526')
    expect(config.WEB_PORT).toBe(3000)
    expect(config.WORKER_METRICS_PORT).toBe(9464)
    expect(config.LANE_SHARDS).toBe(1)
    expect(config.MAILSINK_HTTP_PORT).toBe(8025)
    expect(config.SHUTDOWN_FORCE_EXIT_MS).toBeLessThan(30_000)
    expect(config.SCHEDULE_TIME_ZONE).toBe('UTC')
    expect(config.AUDIT_RETENTION_DAYS).toBe(365)
    expect(config.MESSAGE_RETENTION_DAYS).toBe(90)
    expect(config.METRICS_TOP_TENANTS).toBe(10)
  })

  it('reads the inbound server settings, refusing each wrong one by name', () => {
    const config = parseConfig({})
    expect([
      config.INBOUND_SMTP_PORT,
      config.INBOUND_SMTP_URL,
      config.INBOUND_HTTP_PORT,
      config.SOFT_BOUNCE_LIMIT,
    ]).toEqual([2526, 'smtp://127.0.0.1:2526', 9466, 3])
    const problems = problemsOf({
      INBOUND_SMTP_PORT: '70000',
      INBOUND_SMTP_URL: 'http://inbound:2526',
      INBOUND_HTTP_PORT: 'nine',
      SOFT_BOUNCE_LIMIT: '0',
    })
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual([
      'INBOUND_HTTP_PORT',
      'INBOUND_SMTP_PORT',
      'INBOUND_SMTP_URL',
      'SOFT_BOUNCE_LIMIT',
    ])
  })

  it('reads the MX delivery settings: relay by default, each wrong one refused by name', () => {
    const config = parseConfig({})
    expect(config.DELIVERY_MODE).toBe('relay')
    expect(config.MX_PORT).toBe(25)
    expect(config.MX_ALLOW_PRIVATE).toBe(false)
    expect(config.MX_TLS).toBe('opportunistic')
    expect(config.EGRESS_ADDRESSES).toEqual([])
    // Unset: the machine's host name (a valid one on any machine these tests run on).
    expect(config.SMTP_HELO_NAME).toBe(hostname().toLowerCase())
    expect(
      parseConfig({
        DELIVERY_MODE: 'mx',
        MX_PORT: '2525',
        SMTP_HELO_NAME: ' Mail.Example.COM ',
        MX_ALLOW_PRIVATE: 'true',
        MX_TLS: 'verify',
        EGRESS_ADDRESSES: ' 192.0.2.10, 2001:db8::10 ,',
      }),
    ).toMatchObject({
      DELIVERY_MODE: 'mx',
      MX_PORT: 2525,
      SMTP_HELO_NAME: 'mail.example.com',
      MX_ALLOW_PRIVATE: true,
      MX_TLS: 'verify',
      EGRESS_ADDRESSES: ['192.0.2.10', '2001:db8::10'],
    })
    const problems = problemsOf({
      DELIVERY_MODE: 'direct',
      MX_PORT: '0',
      SMTP_HELO_NAME: 'mail_server',
      MX_ALLOW_PRIVATE: 'yes',
      MX_TLS: 'required',
      EGRESS_ADDRESSES: '192.0.2.10,mail.example.com',
    })
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual([
      'DELIVERY_MODE',
      'EGRESS_ADDRESSES',
      'MX_ALLOW_PRIVATE',
      'MX_PORT',
      'MX_TLS',
      'SMTP_HELO_NAME',
    ])
    expect(problems.find((problem) => problem.startsWith('EGRESS_ADDRESSES'))).toContain(
      'not: mail.example.com',
    )
    expect(problemsOf({ SMTP_HELO_NAME: '  ' })[0]).toMatch(/^SMTP_HELO_NAME: expected a host name/)
    expect(problemsOf({ EGRESS_ADDRESSES: '192.0.2.10,192.0.2.10' })[0]).toMatch(
      /^EGRESS_ADDRESSES: lists 192.0.2.10 more than once/,
    )
  })

  it('reads SCHEDULE_TIME_ZONE as an IANA zone name', () => {
    expect(parseConfig({ SCHEDULE_TIME_ZONE: 'Asia/Ho_Chi_Minh' }).SCHEDULE_TIME_ZONE).toBe(
      'Asia/Ho_Chi_Minh',
    )
    expect(parseConfig({ SCHEDULE_TIME_ZONE: ' Europe/Berlin ' }).SCHEDULE_TIME_ZONE).toBe('Europe/Berlin')
  })

  it('reads TRUSTED_PROXIES as a list of addresses and ranges, none by default', () => {
    expect(parseConfig({}).TRUSTED_PROXIES).toEqual([])
    expect(parseConfig({ TRUSTED_PROXIES: ' 10.0.0.0/8 ,::1, loopback,' }).TRUSTED_PROXIES).toEqual([
      '10.0.0.0/8',
      '::1',
      'loopback',
    ])
    expect(parseConfig({}).MAX_API_KEYS_PER_TENANT).toBe(10)
    expect(parseConfig({}).API_TENANT_RATE_FACTOR).toBe(2)
    expect(parseConfig({}).SIGN_UP_LIMIT_PER_HOUR).toBe(10)
  })

  it('bounds what one tenant may hold or make, refusing a cap of 0', () => {
    expect(parseConfig({})).toMatchObject({
      INVITATIONS_PER_TENANT_PER_HOUR: 20,
      MAX_OPEN_INVITATIONS_PER_TENANT: 50,
      MAX_TEMPLATES_PER_TENANT: 500,
      TEMPLATE_VERSIONS_KEPT: 20,
      MAX_DOMAINS_PER_TENANT: 50,
    })
    expect(() => parseConfig({ MAX_DOMAINS_PER_TENANT: '0' })).toThrow(
      /MAX_DOMAINS_PER_TENANT: expected a number of at least 1/,
    )
    expect(parseConfig({ TEMPLATE_VERSIONS_KEPT: '3' }).TEMPLATE_VERSIONS_KEPT).toBe(3)
  })

  it('reads the webhook lane settings, refusing a retry schedule it cannot read', () => {
    const config = parseConfig({})
    expect(config.WEBHOOK_CONCURRENCY).toBe(50)
    expect(config.WEBHOOK_ENDPOINT_CONCURRENCY).toBe(8)
    expect([config.WEBHOOK_TENANT_RATE_PER_SEC, config.WEBHOOK_TENANT_BURST]).toEqual([100, 200])
    expect(config.WEBHOOK_TENANT_CONCURRENCY).toBe(16)
    expect(config.WEBHOOK_SLOW_MS).toBeUndefined()
    expect(parseConfig({ WEBHOOK_SLOW_MS: '2000' }).WEBHOOK_SLOW_MS).toBe(2_000)
    const slowProblems = problemsOf({ WEBHOOK_SLOW_MS: '10000' })
    expect(slowProblems).toHaveLength(1)
    expect(slowProblems[0]).toMatch(/^WEBHOOK_SLOW_MS: must be below WEBHOOK_TIMEOUT_MS \(10000 ms\)/)
    expect(problemsOf({ WEBHOOK_TENANT_CONCURRENCY: '0' })[0]).toMatch(/^WEBHOOK_TENANT_CONCURRENCY: /)
    expect(config.WEBHOOK_RETRY_SCHEDULE).toBeUndefined()
    expect(parseConfig({ WEBHOOK_RETRY_SCHEDULE: '100ms, 1s,5m,2h' }).WEBHOOK_RETRY_SCHEDULE).toBe(
      '100ms, 1s,5m,2h',
    )
    const problems = problemsOf({ WEBHOOK_RETRY_SCHEDULE: '5s,soon', WEBHOOK_ENDPOINT_CONCURRENCY: '0' })
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual([
      'WEBHOOK_ENDPOINT_CONCURRENCY',
      'WEBHOOK_RETRY_SCHEDULE',
    ])
  })

  it('reads WORKER_LANES as a list of lanes, every lane by default', () => {
    expect(parseConfig({}).WORKER_LANES).toEqual(['critical', 'default', 'bulk'])
    expect(parseConfig({ WORKER_LANES: 'critical, default' }).WORKER_LANES).toEqual(['critical', 'default'])
    expect(parseConfig({}).WORKER_LAYOUT).toBe('single')
    expect(parseConfig({}).SIGNUP_MODE).toBe('verify')
  })

  it("sets the bulk governor at the login codes' goal, a last resort: 200 ms, 0 off", () => {
    expect(parseConfig({}).BULK_GOVERNOR_TARGET_MS).toBe(200)
    expect(parseConfig({ BULK_GOVERNOR_TARGET_MS: '0' }).BULK_GOVERNOR_TARGET_MS).toBe(0)
  })

  it("runs the split layout's transactional worker above nice 0 by default, and takes a raised WORKER_NICE", () => {
    expect(parseConfig({}).WORKER_TX_NICE).toBe(-5)
    expect(parseConfig({}).WORKER_NICE).toBe(0)
    expect(parseConfig({ WORKER_NICE: '-5' }).WORKER_NICE).toBe(-5)
  })

  it('coerces numbers and treats empty strings as unset', () => {
    const config = parseConfig({ CRITICAL_CONCURRENCY: '7', WEB_PORT: '', JOB_LOCK_MS: '45000' })
    expect(config.CRITICAL_CONCURRENCY).toBe(7)
    expect(config.WEB_PORT).toBe(3000)
    expect(config.JOB_LOCK_MS).toBe(45_000)
  })

  it.each([
    [
      { DATABASE_URL: 'mysql://localhost/x' },
      /^DATABASE_URL: expected a postgres:\/\/ or postgresql:\/\/ URL/,
    ],
    [{ DATABASE_URL: 'not a url' }, /^DATABASE_URL: expected/],
    [{ DATABASE_DIRECT_URL: 'redis://db' }, /^DATABASE_DIRECT_URL: expected a postgres:\/\//],
    [{ DATABASE_PREPARE: 'no' }, /^DATABASE_PREPARE: expected true or false/],
    [{ DATABASE_PIPELINE: '0' }, /^DATABASE_PIPELINE: expected true or false/],
    [{ REDIS_URL: 'http://localhost:6379' }, /^REDIS_URL: expected a redis:\/\/ or rediss:\/\/ URL/],
    [{ SMTP_URL: 'localhost:25' }, /^SMTP_URL: expected a smtp:\/\/ or smtps:\/\/ URL/],
    [
      { INBOUND_SMTP_URL: 'http://127.0.0.1:2526' },
      /^INBOUND_SMTP_URL: expected a smtp:\/\/ or smtps:\/\/ URL/,
    ],
    [{ APP_URL: 'ftp://x' }, /^APP_URL: expected a http:\/\/ or https:\/\/ URL/],
    [{ WEB_PORT: '70000' }, /^WEB_PORT: expected a port between 0 and 65535 \(got "70000"\)/],
    [{ WORKER_METRICS_PORT: 'abc' }, /^WORKER_METRICS_PORT: expected a port number \(got "abc"\)/],
    [{ BULK_CONCURRENCY: '0' }, /^BULK_CONCURRENCY: expected a number of at least 1/],
    [{ BULK_BATCH_SIZE: '0' }, /^BULK_BATCH_SIZE: expected a number of at least 1/],
    [{ BULK_BATCH_SIZE: '2.5' }, /^BULK_BATCH_SIZE: expected a whole number/],
    [{ BULK_BATCH_SIZE: '501' }, /^BULK_BATCH_SIZE: expected a number of at most 500/],
    [{ TX_BATCH_SIZE: '0' }, /^TX_BATCH_SIZE: expected a number of at least 1/],
    [{ TX_BATCH_SIZE: 'twenty' }, /^TX_BATCH_SIZE: expected a whole number/],
    [{ TX_BATCH_SIZE: '501' }, /^TX_BATCH_SIZE: expected a number of at most 500/],
    [{ LANE_SHARDS: '0' }, /^LANE_SHARDS: expected a number of at least 1/],
    [{ LANE_SHARDS: '1.5' }, /^LANE_SHARDS: expected a whole number/],
    [{ LANE_SHARDS: '65' }, /^LANE_SHARDS: expected a number of at most 64/],
    [{ NODE_ENV: 'staging' }, /^NODE_ENV: /],
    [{ QUEUE_PREFIX: 'has space' }, /^QUEUE_PREFIX: /],
    [
      { SCHEDULE_TIME_ZONE: 'Mars/Olympus_Mons' },
      /^SCHEDULE_TIME_ZONE: expected an IANA time zone name such as UTC or Europe\/Berlin \(got "Mars\/Olympus_Mons"\)/,
    ],
    [{ SCHEDULE_TIME_ZONE: '+07:00' }, /^SCHEDULE_TIME_ZONE: expected an IANA time zone name/],
    [{ AUDIT_RETENTION_DAYS: '0' }, /^AUDIT_RETENTION_DAYS: expected a number of at least 1/],
    [{ MESSAGE_RETENTION_DAYS: 'ninety' }, /^MESSAGE_RETENTION_DAYS: expected a whole number/],
    [{ MESSAGE_RETENTION_DAYS: '0' }, /^MESSAGE_RETENTION_DAYS: expected a number of at least 1/],
    [
      { WORKER_LANES: 'critical,express' },
      /^WORKER_LANES: expected a comma-separated list of distinct lanes/,
    ],
    [{ WORKER_LANES: 'bulk,bulk' }, /^WORKER_LANES: expected a comma-separated list of distinct lanes/],
    [{ WORKER_LAYOUT: 'triple' }, /^WORKER_LAYOUT: /],
    [{ SIGNUP_MODE: 'closed' }, /^SIGNUP_MODE: expected open, verify or approve/],
    [{ WORKER_NICE: '20' }, /^WORKER_NICE: expected a whole number from -20 to 19/],
    [{ WORKER_TX_NICE: '-21' }, /^WORKER_TX_NICE: expected a whole number from -20 to 19/],
    [{ METRICS_TOP_TENANTS: '1000' }, /^METRICS_TOP_TENANTS: expected at most 100/],
    [
      { TRUSTED_PROXIES: '10.0.0.0/8, proxy.internal' },
      /^TRUSTED_PROXIES: expected comma-separated IP addresses or CIDR ranges .*; not: proxy\.internal/,
    ],
    [{ TRUSTED_PROXIES: '10.0.0.0/33' }, /^TRUSTED_PROXIES: .*not: 10\.0\.0\.0\/33/],
    [{ MAX_API_KEYS_PER_TENANT: '0' }, /^MAX_API_KEYS_PER_TENANT: expected a number of at least 1/],
    [{ API_TENANT_RATE_FACTOR: 'lots' }, /^API_TENANT_RATE_FACTOR: expected a whole number/],
    [
      { ADMIN_TOKEN: 'short' },
      /^ADMIN_TOKEN: expected 16 to 256 characters without spaces \(got a value that does not fit\)/,
    ],
    [{ SESSION_SECRET: 'too-short' }, /^SESSION_SECRET: expected at least 32 characters/],
    [
      { NODE_ENV: 'production', UNSUBSCRIBE_SECRET: UNSUBSCRIBE, DKIM_ENCRYPTION_KEY: DKIM_KEY },
      /^SESSION_SECRET: must be set to a random value/,
    ],
    [
      {
        NODE_ENV: 'production',
        UNSUBSCRIBE_SECRET: UNSUBSCRIBE,
        DKIM_ENCRYPTION_KEY: DKIM_KEY,
        SESSION_SECRET: 'fairlane-compose-DEVELOPMENT-ONLY-secret-set-SESSION_SECRET-in-.env',
      },
      /^SESSION_SECRET: must be set to a random value .*published default/,
    ],
    [
      { NODE_ENV: 'production', SESSION_SECRET: SESSION, DKIM_ENCRYPTION_KEY: DKIM_KEY },
      /^UNSUBSCRIBE_SECRET: must be set to random values .*key id 1 is a published default\) \(it is not set\)/,
    ],
    [
      {
        NODE_ENV: 'production',
        SESSION_SECRET: SESSION,
        DKIM_ENCRYPTION_KEY: DKIM_KEY,
        UNSUBSCRIBE_SECRET: `2:${'n'.repeat(32)},1:fairlane-development-unsubscribe-secret-change-me`,
      },
      /^UNSUBSCRIBE_SECRET: .*key id 1 is a published default/,
    ],
    [{ UNSUBSCRIBE_SECRET: '2:too-short' }, /^UNSUBSCRIBE_SECRET: expected each secret to have at least 32/],
    [
      { UNSUBSCRIBE_SECRET: `0:${'o'.repeat(32)}` },
      /^UNSUBSCRIBE_SECRET: expected the first \(signing\) key to have an id from 1 to 255/,
    ],
    [
      { UNSUBSCRIBE_SECRET: `3:${'a'.repeat(32)},3:${'b'.repeat(32)}` },
      /^UNSUBSCRIBE_SECRET: expected each key id once; key id 3 repeats \(got a value that does not fit\)/,
    ],
    [{ UNSUBSCRIBE_SECRET: `256:${'a'.repeat(32)}` }, /^UNSUBSCRIBE_SECRET: expected key ids from 0 to 255/],
    [
      { NODE_ENV: 'production', SESSION_SECRET: SESSION, UNSUBSCRIBE_SECRET: UNSUBSCRIBE },
      /^DKIM_ENCRYPTION_KEY: must be set to 32 random bytes in base64 in production .*published default/,
    ],
    [
      { DKIM_ENCRYPTION_KEY: '1:c2hvcnQ=' },
      /^DKIM_ENCRYPTION_KEY: expected 32 random bytes in base64.*key id 1/,
    ],
    [
      { DKIM_ENCRYPTION_KEY: `a:${DKIM_KEY.slice(2)},a:${DKIM_KEY.slice(2)}` },
      /^DKIM_ENCRYPTION_KEY: expected each key id once; key id a repeats/,
    ],
    [{ DNS_SERVERS: 'ns1.example.com' }, /^DNS_SERVERS: expected IP addresses with an optional port/],
    [{ RETURN_PATH_HOST: 'not a host' }, /^RETURN_PATH_HOST: expected a host name/],
    [
      { SMTP_TIMEOUT_MS: '30000', SEND_LOCK_MS: '60000' },
      /^SEND_LOCK_MS: must be at least 3 × SMTP_TIMEOUT_MS/,
    ],
  ])('refuses %o, naming the variable', (env, expected) => {
    const problems = problemsOf(env as Record<string, string>)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(expected)
  })

  it('refuses MX_ALLOW_PRIVATE=true in production, naming it; development and tests may', () => {
    const production = {
      NODE_ENV: 'production',
      SESSION_SECRET: SESSION,
      UNSUBSCRIBE_SECRET: UNSUBSCRIBE,
      DKIM_ENCRYPTION_KEY: DKIM_KEY,
    }
    const problems = problemsOf({ ...production, MX_ALLOW_PRIVATE: 'true' })
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^MX_ALLOW_PRIVATE: must not be true in production \(NODE_ENV=production\)/)
    expect(parseConfig(production).MX_ALLOW_PRIVATE).toBe(false)
    expect(parseConfig({ NODE_ENV: 'development', MX_ALLOW_PRIVATE: 'true' }).MX_ALLOW_PRIVATE).toBe(true)
  })

  it('refuses WEBHOOK_ALLOW_PRIVATE=true in production, naming it, unless overridden outright', () => {
    const production = {
      NODE_ENV: 'production',
      SESSION_SECRET: SESSION,
      UNSUBSCRIBE_SECRET: UNSUBSCRIBE,
      DKIM_ENCRYPTION_KEY: DKIM_KEY,
    }
    const problems = problemsOf({ ...production, WEBHOOK_ALLOW_PRIVATE: 'true' })
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(
      /^WEBHOOK_ALLOW_PRIVATE: must not be true in production \(NODE_ENV=production\)/,
    )
    expect(parseConfig({ ...production, WEBHOOK_ALLOW_PRIVATE: 'false' }).WEBHOOK_ALLOW_PRIVATE).toBe(false)
    expect(parseConfig(production).WEBHOOK_ALLOW_PRIVATE).toBe(false)
    for (const NODE_ENV of ['development', 'test']) {
      expect(parseConfig({ NODE_ENV, WEBHOOK_ALLOW_PRIVATE: 'true' }).WEBHOOK_ALLOW_PRIVATE).toBe(true)
    }
    // `pnpm start`'s web process: Next.js's production build on a developer's machine.
    expect(
      parseConfig({
        ...production,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_ALLOW_PRIVATE_IN_PRODUCTION: 'true',
      }).WEBHOOK_ALLOW_PRIVATE,
    ).toBe(true)
  })

  it('reads UNSUBSCRIBE_SECRET as key ids and secrets, the first signing; a bare secret is key 1', () => {
    const keys = parseConfig({
      UNSUBSCRIBE_SECRET: ` 2:${'n'.repeat(40)} , 0:${'s'.repeat(32)},1:${'o'.repeat(32)}`,
    })
    expect(keys.UNSUBSCRIBE_SECRET).toEqual([
      { kid: 2, secret: 'n'.repeat(40) },
      { kid: 0, secret: 's'.repeat(32) },
      { kid: 1, secret: 'o'.repeat(32) },
    ])
    expect(parseConfig({ UNSUBSCRIBE_SECRET: 'x'.repeat(32) }).UNSUBSCRIBE_SECRET).toEqual([
      { kid: 1, secret: 'x'.repeat(32) },
    ])
    expect(
      parseConfig({
        NODE_ENV: 'production',
        SESSION_SECRET: SESSION,
        UNSUBSCRIBE_SECRET: UNSUBSCRIBE,
        DKIM_ENCRYPTION_KEY: DKIM_KEY,
      }),
    ).toMatchObject({ UNSUBSCRIBE_SECRET: [{ kid: 1 }] })
  })

  it('reads DKIM_ENCRYPTION_KEY as key ids and 32-byte keys, DNS_SERVERS as a list', () => {
    const config = parseConfig({
      DKIM_ENCRYPTION_KEY: `k2:${Buffer.alloc(32, 2).toString('base64')},${Buffer.alloc(32, 1).toString('base64')}`,
      DNS_SERVERS: '127.0.0.1:5353, [::1]:53',
      RETURN_PATH_HOST: 'Bounces.Example.COM',
    })
    expect(config.DKIM_ENCRYPTION_KEY).toEqual([
      { kid: 'k2', key: Buffer.alloc(32, 2) },
      { kid: '1', key: Buffer.alloc(32, 1) },
    ])
    expect(config.DNS_SERVERS).toEqual(['127.0.0.1:5353', '[::1]:53'])
    expect(config.RETURN_PATH_HOST).toBe('bounces.example.com')
    expect(parseConfig({}).DNS_SERVERS).toBeUndefined()
  })

  it('never echoes a secret or a URL that may carry a password', () => {
    const problems = problemsOf({
      DATABASE_URL: 'mysql://user:hunter2@db/x',
      ADMIN_TOKEN: 'has a space in it!!',
    })
    expect(problems).toHaveLength(2)
    expect(problems.join('\n')).not.toContain('hunter2')
    expect(problems.join('\n')).not.toContain('has a space')
  })

  it('reports every wrong variable at once', () => {
    const problems = problemsOf({ WEB_PORT: '-1', REDIS_URL: 'x', CRITICAL_CONCURRENCY: 'many' })
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual([
      'CRITICAL_CONCURRENCY',
      'REDIS_URL',
      'WEB_PORT',
    ])
  })
})

describe('EGRESS_POOLS', () => {
  it('reads named pools of egress addresses', () => {
    expect(
      parseConfig({ EGRESS_POOLS: 'acme=192.0.2.20|192.0.2.21, bulk-2=2001:db8::5' }).EGRESS_POOLS,
    ).toEqual({
      acme: ['192.0.2.20', '192.0.2.21'],
      'bulk-2': ['2001:db8::5'],
    })
    expect(parseConfig({}).EGRESS_POOLS).toEqual({})
  })

  it.each([
    ['Acme=192.0.2.20', /not a pool name/],
    ['default=192.0.2.20', /"default" is the pool of EGRESS_ADDRESSES/],
    ['acme=', /pool acme has no addresses/],
    ['acme=mail.example.com', /mail\.example\.com is not an IP address/],
    ['a=192.0.2.20,b=192.0.2.20', /192\.0\.2\.20 is in more than one pool/],
    ['a=192.0.2.20,a=192.0.2.21', /pool a is listed twice/],
  ])('refuses %s, naming EGRESS_POOLS', (value, expected) => {
    const problems = problemsOf({ EGRESS_POOLS: value })
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^EGRESS_POOLS: /)
    expect(problems[0]).toMatch(expected)
  })

  it('refuses an address both shared and dedicated', () => {
    expect(
      problemsOf({ EGRESS_ADDRESSES: '192.0.2.10,192.0.2.20', EGRESS_POOLS: 'acme=192.0.2.20' })[0],
    ).toMatch(
      /^EGRESS_POOLS: an address of a dedicated pool must not also be in EGRESS_ADDRESSES.*192\.0\.2\.20 \(acme\)/,
    )
  })
})
