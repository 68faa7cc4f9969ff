import { isIP } from 'node:net'
import { hostname } from 'node:os'
import { z } from 'zod'
import { parseMailSinkReceivers } from './mailsink-receivers'
import { plansFileVariable, plansVariable } from './plans'
import { parseRedisSeeds } from './redis-seeds'
import { refineSubmission, SUBMISSION_ENV } from './submission-env'

/**
 * Every environment variable Fairlane reads, in one schema. Each process parses it once at boot
 * (see `loadConfig`); nothing else in the code base reads `process.env`.
 */

const urlWithProtocols = (protocols: string[], example: string) =>
  z
    .string()
    .trim()
    .refine(
      (value) => {
        try {
          return protocols.includes(new URL(value).protocol)
        } catch {
          return false
        }
      },
      { message: `expected a ${protocols.map((p) => `${p}//`).join(' or ')} URL such as ${example}` },
    )

const port = (fallback: number) =>
  z.coerce
    .number({ message: 'expected a port number' })
    .int('expected a whole port number')
    .min(0, 'expected a port between 0 and 65535')
    .max(65535, 'expected a port between 0 and 65535')
    .default(fallback)

/** A process's nice: a whole number from -20 (highest priority) to 19 (lowest). */
const nice = (fallback: number) =>
  z.coerce
    .number({ message: 'expected a whole number from -20 to 19' })
    .int('expected a whole number from -20 to 19')
    .min(-20, 'expected a whole number from -20 to 19')
    .max(19, 'expected a whole number from -20 to 19')
    .default(fallback)

const positiveInt = (fallback: number, max = 1_000_000) =>
  z.coerce
    .number({ message: 'expected a whole number' })
    .int('expected a whole number')
    .min(1, 'expected a number of at least 1')
    .max(max, `expected a number of at most ${max}`)
    .default(fallback)

/** A comma-separated list of lanes (`critical,default`), each once; at least one. */
const laneList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, context) => {
      const lanes = value.split(',').map((lane) => lane.trim())
      const known = ['critical', 'default', 'bulk'] as const
      const unknown = lanes.filter((lane) => !(known as readonly string[]).includes(lane))
      if (unknown.length > 0 || lanes.length === 0 || new Set(lanes).size !== lanes.length) {
        context.addIssue({
          code: 'custom',
          message: `expected a comma-separated list of distinct lanes from critical, default, bulk; got "${value}"`,
        })
        return z.NEVER
      }
      return lanes as Array<(typeof known)[number]>
    })

/**
 * `ATTACHMENT_BLOCKED_EXTENSIONS`: comma-separated extensions (`exe,js` or `.exe, .js`), lower-cased,
 * without dots; `none` blocks nothing. Unset or empty: undefined, and core's default list applies
 * (`DEFAULT_BLOCKED_EXTENSIONS`: config depends on zod only, so the list is kept in one place there).
 */
const extensionList = () =>
  z
    .string()
    .optional()
    .transform((value, context) => {
      if (value === undefined || value.trim() === '') return undefined
      if (value.trim().toLowerCase() === 'none') return [] as string[]
      const extensions = value.split(',').map((part) => part.trim().replace(/^\./, '').toLowerCase())
      const bad = extensions.filter((extension) => !/^[a-z0-9_-]{1,16}$/.test(extension))
      if (bad.length > 0) {
        context.addIssue({
          code: 'custom',
          message: `expected comma-separated file extensions such as exe,js (or none); got "${value}"`,
        })
        return z.NEVER
      }
      return extensions
    })

/**
 * `ACCEPT_HORIZON_MS`: one duration for both transactional lanes (`15000`), or per lane
 * (`critical:10000,default:60000`; a lane left out keeps its default).
 */
const acceptHorizons = (fallback: { critical: number; default: number }) =>
  z
    .string()
    .optional()
    .transform((value, context) => {
      const horizons = { ...fallback }
      if (value === undefined || value.trim() === '') return horizons
      const expected = `expected milliseconds, or critical:<ms>,default:<ms>; got "${value}"`
      if (/^\d+$/.test(value.trim())) {
        const ms = Number(value.trim())
        if (ms < 1) context.addIssue({ code: 'custom', message: expected })
        return { critical: ms, default: ms }
      }
      for (const part of value.split(',')) {
        const match = /^\s*(critical|default)\s*:\s*(\d+)\s*$/.exec(part)
        if (!match || Number(match[2]) < 1) {
          context.addIssue({ code: 'custom', message: expected })
          return z.NEVER
        }
        horizons[match[1] as 'critical' | 'default'] = Number(match[2])
      }
      return horizons
    })

const durationMs = (fallback: number) =>
  z.coerce
    .number({ message: 'expected a duration in milliseconds' })
    .int('expected a whole number of milliseconds')
    .min(1, 'expected at least 1 millisecond')
    .default(fallback)

/**
 * An IANA time zone name (`Europe/Berlin`, `UTC`), as the runtime's Intl knows it. Offsets such as
 * `+07:00` are refused: a zone name keeps daylight saving time right, a fixed offset does not.
 */
const timeZone = (fallback: string) =>
  z
    .string()
    .trim()
    .refine(
      (value) => {
        if (/^(UTC|GMT)?[+-]/i.test(value)) return false
        try {
          new Intl.DateTimeFormat('en-US', { timeZone: value })
          return true
        } catch {
          return false
        }
      },
      { message: 'expected an IANA time zone name such as UTC or Europe/Berlin' },
    )
    .default(fallback)

const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal']

/** One IPv4/IPv6 address, optionally with a /prefix; checked here so a typo stops the boot. */
function isAddressOrRange(entry: string): boolean {
  const slash = entry.indexOf('/')
  const address = slash === -1 ? entry : entry.slice(0, slash)
  const family = isIP(address)
  if (family === 0) return false
  if (slash === -1) return true
  const prefix = entry.slice(slash + 1)
  return /^\d{1,3}$/.test(prefix) && Number(prefix) >= 1 && Number(prefix) <= (family === 4 ? 32 : 128)
}

/**
 * The proxies whose `X-Forwarded-For` the web process believes: comma-separated addresses and CIDR
 * ranges (and `loopback`, `linklocal`, `uniquelocal`). Empty: none, the socket's address is the client.
 */
const proxyList = z
  .string()
  .default('')
  .transform((value, context) => {
    const entries = value
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '')
    const wrong = entries.filter((entry) => !PROXY_RANGE_NAMES.includes(entry) && !isAddressOrRange(entry))
    if (wrong.length > 0) {
      context.addIssue({
        code: 'custom',
        message: `expected comma-separated IP addresses or CIDR ranges such as 10.0.0.0/8, ::1; not: ${wrong.join(', ')}`,
      })
      return z.NEVER
    }
    return entries
  })

/** A development-only secret: refused when NODE_ENV=production (see the refinement below). */
export const DEVELOPMENT_SESSION_SECRET = 'fairlane-development-session-secret-change-me'
/** The development unsubscribe key (key id 1): refused when NODE_ENV=production. */
export const DEVELOPMENT_UNSUBSCRIBE_SECRET = '1:fairlane-development-unsubscribe-secret-change-me'

/**
 * Secrets published in this repository: the development defaults above and docker-compose.yml's
 * former defaults. Each would pass a length check, so production refuses them by value.
 */
export const KNOWN_DEFAULT_SECRETS: ReadonlySet<string> = new Set([
  DEVELOPMENT_SESSION_SECRET,
  'fairlane-development-unsubscribe-secret-change-me',
  'fairlane-compose-DEVELOPMENT-ONLY-secret-set-SESSION_SECRET-in-.env',
])

/** One unsubscribe key: its id travels in every token it signs (1–255), 0 is the legacy SESSION_SECRET key. */
export interface UnsubscribeSecret {
  kid: number
  secret: string
}

/**
 * `UNSUBSCRIBE_SECRET`: `kid:secret[,kid:secret…]`; the first signs new tokens, every one verifies
 * (rotation: put the new key first, keep the old ones until the links they signed no longer matter).
 * A secret without `kid:` is key 1. Key id 0 names an old SESSION_SECRET: tokens minted before keys
 * had ids were signed with a key derived from it, so `0:<old session secret>` keeps them verifying
 * after SESSION_SECRET rotates (the current SESSION_SECRET always verifies them).
 */
const unsubscribeSecrets = z
  .string()
  .default(DEVELOPMENT_UNSUBSCRIBE_SECRET)
  .transform((value, context): UnsubscribeSecret[] => {
    const fail = (message: string) => {
      context.addIssue({ code: 'custom', message })
      return z.NEVER
    }
    const keys: UnsubscribeSecret[] = []
    for (const entry of value.split(',').map((part) => part.trim())) {
      const match = /^(\d{1,3}):(.*)$/.exec(entry)
      const kid = match ? Number(match[1]) : 1
      const secret = match ? (match[2] ?? '') : entry
      if (kid > 255) return fail(`expected key ids from 0 to 255 (kid:secret,…); got key id ${kid}`)
      if (secret.length < 32)
        return fail(`expected each secret to have at least 32 characters (key id ${kid})`)
      if (keys.some((key) => key.kid === kid)) return fail(`expected each key id once; key id ${kid} repeats`)
      keys.push({ kid, secret })
    }
    if (keys[0]?.kid === 0) {
      return fail('expected the first (signing) key to have an id from 1 to 255; 0 only verifies old links')
    }
    return keys
  })

/** The development DKIM key-encryption key (key id 1): refused when NODE_ENV=production. */
export const DEVELOPMENT_DKIM_ENCRYPTION_KEY = '1:ZmFpcmxhbmUtZGV2LWRraW0ta2V5LWNoYW5nZS1tZSE='

/** One DKIM key-encryption key: its id is stored beside every private key it encrypts. */
export interface DkimEncryptionKey {
  kid: string
  /** 32 bytes: AES-256-GCM. */
  key: Buffer
}

/**
 * `DKIM_ENCRYPTION_KEY`: `kid:base64[,kid:base64…]`, each 32 random bytes (`openssl rand -base64 32`);
 * the first encrypts new DKIM private keys, every one decrypts (rotation: put the new key first, keep
 * the old until every stored key was re-encrypted). A key without `kid:` has id `1`.
 */
const dkimEncryptionKeys = z
  .string()
  .default(DEVELOPMENT_DKIM_ENCRYPTION_KEY)
  .transform((value, context): DkimEncryptionKey[] => {
    const fail = (message: string) => {
      context.addIssue({ code: 'custom', message })
      return z.NEVER
    }
    const keys: DkimEncryptionKey[] = []
    for (const entry of value.split(',').map((part) => part.trim())) {
      const match = /^([A-Za-z0-9_-]{1,16}):(.*)$/.exec(entry)
      const kid = match ? (match[1] ?? '1') : '1'
      const encoded = match ? (match[2] ?? '') : entry
      const key = Buffer.from(encoded, 'base64')
      if (key.length !== 32 || key.toString('base64') !== encoded.replace(/=*$/, '').padEnd(44, '=')) {
        return fail(
          `expected 32 random bytes in base64, e.g. from \`openssl rand -base64 32\` (key id ${kid})`,
        )
      }
      if (keys.some((other) => other.kid === kid))
        return fail(`expected each key id once; key id ${kid} repeats`)
      keys.push({ kid, key })
    }
    return keys
  })

/** `host:port` (or a bare host, port 53) per DNS server, comma-separated. */
const dnsServers = z
  .string()
  .optional()
  .transform((value, context): string[] | undefined => {
    if (value === undefined || value.trim() === '') return undefined
    const servers = value.split(',').map((part) => part.trim())
    for (const server of servers) {
      if (!/^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\])(:\d{1,5})?$/.test(server)) {
        context.addIssue({
          code: 'custom',
          message: `expected IP addresses with an optional port (127.0.0.1:5353,[::1]:53); got ${JSON.stringify(server)}`,
        })
        return z.NEVER
      }
    }
    return servers
  })

const HOST_NAME =
  /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/

const hostName = (example: string) =>
  z
    .string()
    .regex(HOST_NAME, `expected a host name such as ${example}`)
    .transform((value) => value.toLowerCase())

/**
 * `SMTP_HELO_NAME`: the name Fairlane announces in EHLO to the receivers' MX hosts, which compare it
 * with the egress address's PTR record. Unset: the machine's host name, which must then be a valid
 * host name itself (a boot that would announce `localhost_1` is refused naming the variable).
 */
const heloName = z
  .string()
  .optional()
  .transform((value, context) => {
    const name = value === undefined ? hostname() : value.trim()
    if (!HOST_NAME.test(name)) {
      context.addIssue({
        code: 'custom',
        message:
          value === undefined
            ? `unset, and the machine's host name "${name}" is not a valid host name: set it to the egress addresses' PTR name, such as mail.example.com`
            : `expected a host name such as mail.example.com (the egress addresses' PTR name); got "${value}"`,
      })
      return z.NEVER
    }
    return name.toLowerCase()
  })

/**
 * `EGRESS_ADDRESSES`: comma-separated local IP addresses mail to MX hosts leaves from, each once.
 * Empty: none named, the operating system picks the source address.
 */
const egressAddresses = z
  .string()
  .default('')
  .transform((value, context) => {
    const addresses = value
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '')
    const wrong = addresses.filter((address) => isIP(address) === 0)
    if (wrong.length > 0) {
      context.addIssue({
        code: 'custom',
        message: `expected comma-separated local IP addresses such as 192.0.2.10, 2001:db8::10; not: ${wrong.join(', ')}`,
      })
      return z.NEVER
    }
    const repeated = addresses.filter((address, index) => addresses.indexOf(address) !== index)
    if (repeated.length > 0) {
      context.addIssue({ code: 'custom', message: `lists ${repeated.join(', ')} more than once` })
      return z.NEVER
    }
    return addresses
  })

/**
 * `EGRESS_POOLS`: dedicated egress addresses the platform admin may pin tenants to, as
 * `name=address|address,name=address` (names lowercase letters, digits and dashes; `default` is
 * EGRESS_ADDRESSES' own). Each address in one pool only. Empty: no pools.
 */
const egressPools = z
  .string()
  .default('')
  .transform((value, context) => {
    const pools: Record<string, string[]> = {}
    const seen = new Set<string>()
    for (const entry of value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)) {
      const [name = '', list = ''] = entry.split('=', 2).map((part) => part.trim())
      const addresses = list
        .split('|')
        .map((address) => address.trim())
        .filter(Boolean)
      const problem = !/^[a-z0-9][a-z0-9-]{0,39}$/.test(name)
        ? `"${name}" is not a pool name (lowercase letters, digits and dashes)`
        : name === 'default'
          ? '"default" is the pool of EGRESS_ADDRESSES; name the dedicated pools otherwise'
          : name in pools
            ? `pool ${name} is listed twice`
            : addresses.length === 0
              ? `pool ${name} has no addresses`
              : addresses.find((address) => isIP(address) === 0)
                ? `pool ${name}: ${addresses.find((address) => isIP(address) === 0)} is not an IP address`
                : addresses.find((address) => seen.has(address))
                  ? `${addresses.find((address) => seen.has(address))} is in more than one pool`
                  : undefined
      if (problem) {
        context.addIssue({ code: 'custom', message: `expected name=address|address,…; ${problem}` })
        return z.NEVER
      }
      for (const address of addresses) seen.add(address)
      pools[name] = addresses
    }
    return pools
  })

/** One redis:// URL, or a comma-separated list of them (REDIS_CLUSTER's seeds), each checked; spaces dropped. */
const redisUrls = z
  .string()
  .trim()
  .transform((value, context) => {
    try {
      return parseRedisSeeds(value)
        .map((seed) => seed.url)
        .join(',')
    } catch (error) {
      context.addIssue({
        code: 'custom',
        message: `expected a redis:// or rediss:// URL such as redis://127.0.0.1:6379 (or, with REDIS_CLUSTER=true, several separated by commas): ${(error as Error).message}`,
      })
      return z.NEVER
    }
  })

const developmentDkimKey = Buffer.from(DEVELOPMENT_DKIM_ENCRYPTION_KEY.slice(2), 'base64')

export const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

    DATABASE_URL: urlWithProtocols(
      ['postgres:', 'postgresql:'],
      'postgres://user@127.0.0.1:5432/fairlane',
    ).default('postgres://postgres@127.0.0.1:5432/fairlane'),
    /**
     * A URL that reaches PostgreSQL itself, never a transaction pooler: `LISTEN`, migrations (their
     * session advisory lock) and anything else that keeps session state use it. Unset: DATABASE_URL
     * (see `databaseDirectUrl`).
     */
    DATABASE_DIRECT_URL: urlWithProtocols(
      ['postgres:', 'postgresql:'],
      'postgres://user@127.0.0.1:5432/fairlane',
    ).optional(),
    /**
     * `false`: no named prepared statements (postgres.js `prepare: false`), for a pooler that cannot
     * carry them between server connections — PgBouncer before 1.21 in transaction mode, or 1.21+
     * with `max_prepared_statements = 0`.
     */
    DATABASE_PREPARE: z
      .enum(['true', 'false'], { message: 'expected true or false' })
      .default('true')
      .transform((value) => value === 'true'),
    /**
     * `false`: one statement at a time per connection (postgres.js `max_pipeline: 0`), for PgBouncer in
     * transaction mode, which hands the server connection on at the first pipelined statement's end and
     * drops the next one's replies (seen with 1.18). Unset: follows DATABASE_PREPARE.
     */
    DATABASE_PIPELINE: z
      .enum(['true', 'false'], { message: 'expected true or false' })
      .optional()
      .transform((value) => (value === undefined ? undefined : value === 'true')),
    DATABASE_POOL_MAX: positiveInt(10, 500),
    /** One URL; with REDIS_CLUSTER=true one or more comma-separated seed nodes of the cluster. */
    REDIS_URL: redisUrls.default('redis://127.0.0.1:6379'),
    /** `true`: REDIS_URL seeds a Redis Cluster (ioredis `Cluster` for every connection). */
    REDIS_CLUSTER: z
      .enum(['true', 'false'], { message: 'expected true or false' })
      .default('false')
      .transform((value) => value === 'true'),
    /** BullMQ key prefix; wrap it in braces (`{fairlane}`) on Redis Cluster so a queue's keys share a slot. */
    QUEUE_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_{}-]{1,64}$/, 'expected 1-64 letters, digits, _, -, { or }')
      .default('fairlane'),
    SMTP_URL: urlWithProtocols(['smtp:', 'smtps:'], 'smtp://127.0.0.1:2525').default('smtp://127.0.0.1:2525'),
    /**
     * Path of the receiver rules file (JSON: providers and their MX host patterns, starting limits,
     * warm-up, back-off); unset: the repository's `packages/delivery/receivers.default.json`. The
     * worker validates it at boot (`loadReceiverRules` in @fairlane/delivery).
     */
    RECEIVER_RULES: z.string().trim().min(1, 'expected the path of a JSON file').optional(),
    /**
     * Named plans (JSON `{ "<name>": { ratePerSec, burst, weight, transactional?, quota? } }`) adding to
     * or replacing the built-in free, standard and pro; `PLANS_FILE` gives the same as a file. Not both.
     */
    PLANS: plansVariable,
    PLANS_FILE: plansFileVariable,
    APP_URL: urlWithProtocols(['http:', 'https:'], 'http://127.0.0.1:3000').default('http://127.0.0.1:3000'),
    /** Domain used in the deterministic Message-ID; defaults to APP_URL's host name. */
    MAIL_DOMAIN: z
      .string()
      .regex(/^[A-Za-z0-9.-]+$/, 'expected a domain name such as mail.example.com')
      .optional(),
    MAIL_FROM: z
      .string()
      .email('expected an email address such as mail@example.com')
      .default('mail@fairlane.localhost'),

    /**
     * The platform's return-path host: tenants' `<label>.<domain>` CNAMEs point here, and it carries
     * the MX and SPF of the inbound SMTP server that reads bounces.
     */
    RETURN_PATH_HOST: hostName('bounces.fairlane.example').default('bounces.fairlane.localhost'),
    /** The envelope-sender domain of mail sent from the platform's MAIL_FROM (no tenant domain). */
    BOUNCE_DOMAIN: hostName('bounces.fairlane.example').default('bounces.fairlane.localhost'),
    /** Resolvers for domain verification (`127.0.0.1:5353`); default: the system's. */
    DNS_SERVERS: dnsServers,
    /** Encrypts DKIM private keys at rest; see `dkimEncryptionKeys`. */
    DKIM_ENCRYPTION_KEY: dkimEncryptionKeys,

    SESSION_SECRET: z.string().min(32, 'expected at least 32 characters').default(DEVELOPMENT_SESSION_SECRET),
    /** Signs the unsubscribe links in campaign mail; independent of SESSION_SECRET (see `unsubscribeSecrets`). */
    UNSUBSCRIBE_SECRET: unsubscribeSecrets,
    ADMIN_TOKEN: z
      .string()
      .regex(/^\S{16,256}$/, 'expected 16 to 256 characters without spaces')
      .optional(),
    DEMO_API_KEY: z
      .string()
      .regex(/^[\x21-\x7e]{16,256}$/, 'expected 16 to 256 printable characters without spaces')
      .optional(),
    METRICS_TOKEN: z
      .string()
      .regex(/^\S{16,256}$/, 'expected 16 to 256 characters without spaces')
      .optional(),

    /**
     * Proxies in front of the web process whose `X-Forwarded-For` is believed when telling who the
     * client is (sign-in and sign-up throttling); default none: the socket's peer is the client.
     */
    TRUSTED_PROXIES: proxyList,
    /**
     * Sign-ups one client address (an IPv4 address or an IPv6 /64) may make per hour. Raised in the
     * e2e suites, which sign up a tenant per test from 127.0.0.1.
     */
    SIGN_UP_LIMIT_PER_HOUR: positiveInt(10, 1_000_000),
    /**
     * What a new account may do before anyone looks at it: `open`, send at once (no verification
     * mail); `verify`, send once its email is verified; `approve`, also wait for the platform admin to
     * approve its tenant. Everyone may sign in at once; only sending and API keys wait.
     */
    SIGNUP_MODE: z
      .enum(['open', 'verify', 'approve'], { message: 'expected open, verify or approve' })
      .default('verify'),
    /** Active (unrevoked) API keys one tenant may hold; creating one more is refused. */
    MAX_API_KEYS_PER_TENANT: positiveInt(10, 1000),
    /**
     * Invitations one tenant may make per hour (replaced ones count): each is the platform's own mail
     * to an address the tenant chose, so a tenant cannot turn Fairlane's sender on strangers.
     */
    INVITATIONS_PER_TENANT_PER_HOUR: positiveInt(20, 10_000),
    /** Open (neither accepted nor revoked) invitations one tenant may hold; one more is refused. */
    MAX_OPEN_INVITATIONS_PER_TENANT: positiveInt(50, 10_000),
    /** Templates one tenant may hold; creating one more is refused (422). */
    MAX_TEMPLATES_PER_TENANT: positiveInt(500, 100_000),
    /**
     * Versions of a template kept in its history (the newest, the current one included); a change
     * deletes older ones, except those a message still kept was rendered from.
     */
    TEMPLATE_VERSIONS_KEPT: positiveInt(20, 10_000),
    /** Sending domains one tenant may hold (each is an RSA-2048 key and DNS checks); adding one more is refused (422). */
    MAX_DOMAINS_PER_TENANT: positiveInt(50, 100_000),
    /**
     * A tenant's API request limit, all its keys together, as a multiple of its transactional plan:
     * `API_TENANT_RATE_FACTOR` × `TRANSACTIONAL_RATE_PER_SEC` requests per second, plus a burst of the
     * same multiple of `TRANSACTIONAL_BURST` per 10 s. 2: what its critical and default lanes deliver.
     */
    API_TENANT_RATE_FACTOR: positiveInt(2, 1000),
    /**
     * How far ahead a tenant may accept transactional mail on each lane: beyond what its lane plan
     * (`TRANSACTIONAL_RATE_PER_SEC` × this + `TRANSACTIONAL_BURST`) sends within it, `POST
     * /api/v1/messages` answers 429 with `details.limit: "plan"` (README, Throttling). Login codes
     * (critical) 10 s, other transactional mail (default) 60 s.
     */
    ACCEPT_HORIZON_MS: acceptHorizons({ critical: 10_000, default: 60_000 }),
    /**
     * The largest message any way in accepts, in bytes: the decoded body and attachments of API mail,
     * the DATA of an SMTP submission (its `SIZE`). 10 MB, as the large mailbox providers take.
     */
    MAX_MESSAGE_BYTES: positiveInt(10 * 1024 * 1024, 50 * 1024 * 1024),
    /**
     * Attachments whose file name ends in one of these extensions are refused (422 naming the file).
     * Unset: core's list of executable types (exe, bat, cmd, com, scr, js, vbs, msi, jar, ps1, …).
     */
    ATTACHMENT_BLOCKED_EXTENSIONS: extensionList(),

    HOST: z.string().min(1).default('127.0.0.1'),
    WEB_PORT: port(3000),
    WORKER_METRICS_PORT: port(9464),
    /** The lanes this worker process serves (relay, sweeper, pacer and schedulers run in every one). */
    WORKER_LANES: laneList('critical,default,bulk'),
    /**
     * How many BullMQ queues each lane is split into (README, "Sharded lanes"): a tenant's jobs all go
     * to one shard (a hash of its id), and every worker consumes every shard of its lanes. Every
     * process (web and workers) must read the same number.
     */
    LANE_SHARDS: positiveInt(1, 64),
    /**
     * How `pnpm start` runs the worker: `single`, one process for every lane; `split`, the bulk lane in
     * `worker` and the transactional lanes (critical, default) in `worker-tx` (metrics on
     * `WORKER_METRICS_PORT` + 1), so a login code never waits for a busy bulk process's event loop.
     */
    WORKER_LAYOUT: z.enum(['single', 'split']).default('single'),
    /**
     * The worker process's scheduling priority (nice, -20–19; 0 = normal). A bulk-only worker sharing
     * cores with PostgreSQL, the web app and the transactional worker runs lower (`split` gives it 10),
     * so when the CPU is the limit the bulk lane yields it to login codes, not the other way round.
     * Below 0 (higher) needs CAP_SYS_NICE; without it the worker warns and stays where it is.
     */
    WORKER_NICE: nice(0),
    /**
     * `split`'s transactional worker (`worker-tx`) runs at this nice: -5, above everything at 0, so
     * login codes keep their CPU share on cores that bulk, the web app and PostgreSQL keep busy. Needs
     * CAP_SYS_NICE (root, or Compose's `cap_add: [SYS_NICE]`); without it worker-tx warns and runs at 0.
     */
    WORKER_TX_NICE: nice(-5),
    MAILSINK_SMTP_PORT: port(2525),
    MAILSINK_HTTP_PORT: port(8025),
    MAILSINK_MAX_MESSAGES: positiveInt(50_000, 10_000_000),
    /**
     * The sink checks DKIM, SPF and DMARC of one signed message in this many (1: every one). The
     * checks cost ~1.5 ms of CPU each; `bench:throughput --signed` checks a sample so the sink's
     * work does not crowd the worker whose signing it measures on the same cores.
     */
    MAILSINK_AUTH_CHECK_EVERY: positiveInt(1),
    /**
     * What the sink keeps of each message: `full` (parsed text and HTML, and the raw bytes for
     * `/messages/:id/raw`) or `headers` (envelope and headers only, read without a MIME parse). The
     * benchmarks keep headers: a stand-in receiver that parses and holds every body of 50,000 mails
     * grows its heap to hundreds of MB and stalls in garbage collection on the cores it shares with
     * what is measured, where a real receiver is another machine.
     */
    MAILSINK_STORE: z.enum(['full', 'headers']).default('full'),
    /**
     * UDP port of the sink's DNS server for local use (records published over its HTTP API,
     * `/dns/records`). Unset: the number of `MAILSINK_HTTP_PORT` (UDP and TCP ports do not collide,
     * so every sink a test or benchmark starts on ports of its own gets a DNS port of its own); see
     * `sinkDnsPort`. `pnpm start` points `DNS_SERVERS` at it.
     */
    MAILSINK_DNS_PORT: z.coerce
      .number({ message: 'expected a port number' })
      .int('expected a whole port number')
      .min(0, 'expected a port between 0 and 65535')
      .max(65535, 'expected a port between 0 and 65535')
      .optional(),
    /**
     * The receiving mail servers the sink plays besides its usual listener: comma-separated
     * `address[:port][=name]` (`127.0.0.10=google,127.0.0.11=microsoft,127.0.0.12=others`), each
     * on `MAILSINK_SMTP_PORT` unless it names a port. Unset: none. See the README's mail sink section.
     */
    MAILSINK_RECEIVERS: z
      .string()
      .optional()
      .transform((value, context) => {
        if (value === undefined || value.trim() === '') return []
        const parsed = parseMailSinkReceivers(value)
        if (parsed.ok) return parsed.value
        context.addIssue({ code: 'custom', message: parsed.message })
        return z.NEVER
      }),
    /**
     * The inbound SMTP server (apps/inbound) that reads bounces and complaint reports sent to return
     * paths: the port it listens on, and the URL other processes reach it by (the mail sink acting as
     * a remote MTA sends the DSNs and ARF reports of its `bounce` and `complaint` faults there). Its health and metrics are served over HTTP on `INBOUND_HTTP_PORT`.
     */
    INBOUND_SMTP_PORT: port(2526),
    INBOUND_SMTP_URL: urlWithProtocols(['smtp:', 'smtps:'], 'smtp://127.0.0.1:2526').default(
      'smtp://127.0.0.1:2526',
    ),
    INBOUND_HTTP_PORT: port(9466),
    /**
     * SMTP connections one client (an IPv4 address or an IPv6 /64) may hold open to the inbound
     * server at once; the next is answered 421. Each connection may buffer a whole message (10 MB) and
     * the server takes 100 clients in all, so this keeps one sender from holding every slot.
     */
    INBOUND_MAX_CLIENTS_PER_ADDRESS: positiveInt(10, 1000),
    /** Soft bounces (full mailbox, greylisting that never ended) within 30 days, with no delivery between, that suppress an address. */
    SOFT_BOUNCE_LIMIT: positiveInt(3, 100),

    CRITICAL_CONCURRENCY: positiveInt(20, 1000),
    DEFAULT_CONCURRENCY: positiveInt(10, 1000),
    /**
     * Bulk jobs one worker runs at once: each is a batch that holds one of BULK_SMTP_CONNECTIONS for
     * its whole run, so a couple more than the connections keep them busy between batches. More only
     * queue for a connection inside the process, ahead of nothing: at 20 over 8 connections a new
     * tenant's first job waited for a free slot behind batches that were themselves waiting.
     */
    BULK_CONCURRENCY: positiveInt(10, 1000),
    /** Pooled SMTP connections per lane; each lane has its own pool so bulk never holds a critical slot. */
    CRITICAL_SMTP_CONNECTIONS: positiveInt(4, 100),
    DEFAULT_SMTP_CONNECTIONS: positiveInt(4, 100),
    BULK_SMTP_CONNECTIONS: positiveInt(8, 100),
    SMTP_TIMEOUT_MS: durationMs(10_000),
    /**
     * `relay`: every message goes to SMTP_URL (the default, and `pnpm start`'s). `mx`: each message goes
     * to its recipient domain's own MX hosts, on MX_PORT, from EGRESS_ADDRESSES.
     */
    DELIVERY_MODE: z.enum(['relay', 'mx'], { message: 'expected relay or mx' }).default('relay'),
    /** The port of the receivers' MX hosts: 25 on the internet; tests and `pnpm start --mx` use a high one. */
    MX_PORT: z.coerce
      .number({ message: 'expected a port number' })
      .int('expected a whole port number')
      .min(1, 'expected a port between 1 and 65535')
      .max(65535, 'expected a port between 1 and 65535')
      .default(25),
    SMTP_HELO_NAME: heloName,
    /**
     * `true` (development and tests only): MX hosts may resolve to loopback, private or link-local
     * addresses. Otherwise such an address is refused: a domain's DNS must not steer mail into our network.
     */
    MX_ALLOW_PRIVATE: z
      .enum(['true', 'false'], { message: 'expected true or false' })
      .default('false')
      .transform((value) => value === 'true'),
    /**
     * STARTTLS towards MX hosts. `opportunistic`: when offered, certificate unchecked, plain text when
     * the handshake fails (Postfix's `may`); `verify`: required, with a certificate valid for the MX host
     * name, never plain; `none`: never.
     */
    MX_TLS: z
      .enum(['opportunistic', 'verify', 'none'], { message: 'expected opportunistic, verify or none' })
      .default('opportunistic'),
    EGRESS_ADDRESSES: egressAddresses,
    EGRESS_POOLS: egressPools,
    /**
     * MX mode: a message its receiving provider still defers this many hours after it was accepted
     * fails (`expired`, with the provider's last reply). Deferrals never fail a message before it.
     */
    DELIVERY_MAX_AGE_HOURS: positiveInt(72, 720),

    /** BullMQ job lock; renewed every half of it while the worker lives (not a job time limit). */
    JOB_LOCK_MS: durationMs(30_000),
    STALLED_INTERVAL_MS: durationMs(30_000),
    /** Forced exit after SIGTERM; must stay below the orchestrator's grace period (compose: 35 s). */
    SHUTDOWN_FORCE_EXIT_MS: durationMs(25_000),
    /**
     * `true`: the process shuts down as on SIGTERM when its standard input closes. `pnpm start` sets
     * it for web, worker and sink and holds their stdin open: however the launcher dies (SIGKILL
     * included) the kernel closes that pipe, so no process outlives it holding its port.
     */
    STOP_WHEN_STDIN_CLOSES: z
      .enum(['true', 'false'], { message: 'expected true or false' })
      .default('false')
      .transform((value) => value === 'true'),
    /** How long a claimed send is exclusive: at least the SMTP timeout × 3 phases plus margin. */
    SEND_LOCK_MS: durationMs(60_000),

    /**
     * Bulk jobs Redis may hold at once (waiting + active + delayed); the pacer releases no more. The
     * pacer fills to less while the lane sends less than this per `PACER_QUEUE_MS` (see below).
     */
    PACER_HIGH_WATER: positiveInt(300, 100_000),
    /**
     * How much of the bulk lane's measured sending the queue may hold, in ms of it: a campaign that
     * starts while the queue is full waits about this long for its first send. Never less than two
     * jobs per bulk worker slot, never more than `PACER_HIGH_WATER`.
     */
    PACER_QUEUE_MS: durationMs(500),
    /** How far ahead of its plan's rate a tenant may be released into the bulk queue. */
    PACER_HORIZON_MS: durationMs(1_000),
    /**
     * Messages per unit of plan weight in a tenant's turn of the bulk pacer's round robin: shares
     * stay as the weights say, turns get coarser (short turns of several tenants share a job, so
     * turns of one message cost no more jobs). 1: ten thousand tenants each get a send within a round
     * of ten thousand messages.
     */
    PACER_QUANTUM: positiveInt(1, 500),
    /**
     * Messages one bulk job carries at most, one tenant's or the short turns of several: claimed in
     * one statement, sent in sequence over one held SMTP connection with one token take (per tenant),
     * marked sent in one statement. 1 is one job per message (as before batches). The pacer never
     * waits for a batch to fill.
     */
    BULK_BATCH_SIZE: positiveInt(50, 500),
    /**
     * The bulk governor's target: while the critical lane's moving p95 (created → accepted by SMTP)
     * is over it, the bulk queue's depth and the bulk workers' concurrency are cut (halved each second,
     * down to a tenth), and they grow back a tenth a second once it is under 0.8 × this. 0 turns it off.
     * The last resort, not the way login codes stay fast: their own process, connections and CPU share
     * keep them under 200 ms (the codes' goal), and the governor steps in only when they miss it.
     */
    BULK_GOVERNOR_TARGET_MS: z.coerce
      .number({ message: 'expected a duration in milliseconds (0 turns the governor off)' })
      .int('expected a whole number of milliseconds')
      .min(0, 'expected 0 (off) or a positive number of milliseconds')
      .default(200),
    /** Each tenant's bucket on each transactional lane (critical, default): mails per second and burst. */
    TRANSACTIONAL_RATE_PER_SEC: positiveInt(200, 100_000),
    TRANSACTIONAL_BURST: positiveInt(400, 100_000),
    /**
     * Jobs one tenant may have in one transactional lane at once (waiting, delayed or running); the
     * relay parks the rest of its outbox rows in PostgreSQL, so another tenant's login code waits
     * behind at most this many of a flooding tenant's jobs. A tenant's throughput is at most this many
     * divided by one send's time, so keep it above its rate × the SMTP round trip.
     */
    TRANSACTIONAL_TENANT_SLOTS: positiveInt(10, 10_000),
    /** A lane slot whose job never gave it back (a killed worker) is free again after this long. */
    TRANSACTIONAL_SLOT_TTL_MS: durationMs(30_000),
    /** Only rows whose turn in their tenant's plan comes within this are published (delayed to the turn). */
    TRANSACTIONAL_HORIZON_MS: durationMs(1_000),
    /**
     * Messages one default-lane job carries at most, all of one tenant, when a relay pass finds more
     * than one of that tenant's rows (under load): sent as a bulk batch is (one claim, one connection,
     * one token take, one mark). A lone message is always its own job, at once. Each message holds its
     * own lane slot, so a batch is also at most TRANSACTIONAL_TENANT_SLOTS. 1 is one job per message.
     * The critical lane (login codes) is never batched, nor is anything in MX mode (a batch goes to
     * one receiving provider, and the relay does not know its rows' providers).
     */
    TX_BATCH_SIZE: positiveInt(1, 500),

    /** The zone the worker's cron schedulers (nightly cleanup, daily rollup) and the rollup's days are read in. */
    SCHEDULE_TIME_ZONE: timeZone('UTC'),
    /** Admin and tenant audit log entries older than this many days are deleted by the nightly cleanup. */
    AUDIT_RETENTION_DAYS: positiveInt(365, 36_500),
    /**
     * Message bodies, template variables (login codes, reset links) and rendered content are cleared
     * by the nightly cleanup this many days after the message was created; its metadata stays.
     * `_CRITICAL` for the critical lane (login codes, password resets), the other for the rest.
     */
    MESSAGE_BODY_RETENTION_DAYS: positiveInt(30, 36_500),
    MESSAGE_BODY_RETENTION_DAYS_CRITICAL: positiveInt(7, 36_500),
    /**
     * Finished messages (sent, failed, suppressed, cancelled, bounced, complained) are deleted by the
     * nightly cleanup this many days after they were created, with their events, clicks and webhook
     * deliveries, once the daily rollup has counted their day; open ones never are.
     */
    MESSAGE_RETENTION_DAYS: positiveInt(90, 36_500),
    /**
     * `true` (development and tests only): webhook URLs may be plain `http` and may point at loopback,
     * private, link-local and metadata addresses; otherwise both are refused, at creation and again at
     * connect time, after DNS.
     */
    WEBHOOK_ALLOW_PRIVATE: z
      .enum(['true', 'false'], { message: 'expected true or false' })
      .default('false')
      .transform((value) => value === 'true'),
    /**
     * `true`: WEBHOOK_ALLOW_PRIVATE=true is taken with NODE_ENV=production. `pnpm start` sets it for its
     * web process alone, which runs Next.js's production build (NODE_ENV=production) on a developer's
     * machine; a deployment that sets it lets every tenant's webhooks reach its private network.
     */
    WEBHOOK_ALLOW_PRIVATE_IN_PRODUCTION: z
      .enum(['true', 'false'], { message: 'expected true or false' })
      .default('false')
      .transform((value) => value === 'true'),
    /** A webhook attempt that has no 2xx answer within this long failed (connect, headers and body). */
    WEBHOOK_TIMEOUT_MS: durationMs(10_000),
    /** Webhook attempts one worker process runs at once (its own BullMQ worker, never a mail lane's). */
    WEBHOOK_CONCURRENCY: positiveInt(50, 1000),
    /**
     * Attempts in flight per endpoint, all worker processes together: an endpoint that hangs holds at
     * most this many of the webhook lane's workers (and only until it is parked).
     */
    WEBHOOK_ENDPOINT_CONCURRENCY: positiveInt(8, 100),
    /**
     * Attempts in flight per tenant, all its endpoints and all worker processes together: a tenant
     * whose many endpoints answer slowly holds at most this many of the lane's workers, and its other
     * deliveries wait in PostgreSQL (unleased) until one of its attempts ends. The default, a third of
     * WEBHOOK_CONCURRENCY and twice an endpoint's cap, leaves the lane to three such tenants at once
     * and still carries a tenant's whole bucket (100/s) to receivers answering within 160 ms.
     */
    WEBHOOK_TENANT_CONCURRENCY: positiveInt(16, 1000),
    /**
     * A 2xx slower than this is delivered, but its endpoint is slowed: one attempt at a time (as after
     * a park) until an answer comes back faster. Unset: half of WEBHOOK_TIMEOUT_MS.
     */
    WEBHOOK_SLOW_MS: z.coerce
      .number({ message: 'expected a duration in milliseconds' })
      .int('expected a whole number of milliseconds')
      .min(1, 'expected at least 1 millisecond')
      .optional(),
    /** Each tenant's webhook bucket: attempts per second and burst, all its endpoints together. */
    WEBHOOK_TENANT_RATE_PER_SEC: positiveInt(100, 100_000),
    WEBHOOK_TENANT_BURST: positiveInt(200, 100_000),
    /**
     * The waits after each failed attempt, e.g. `5s,5m,30m,2h,5h,10h,10h` (the default); a delivery
     * whose last wait is spent fails. Units ms, s, m, h.
     */
    WEBHOOK_RETRY_SCHEDULE: z
      .string()
      .regex(
        /^\s*[1-9]\d*(ms|s|m|h)?(\s*,\s*[1-9]\d*(ms|s|m|h)?)*\s*$/,
        'expected durations such as 5s,5m,30m,2h (units ms, s, m, h)',
      )
      .optional(),
    /**
     * Opens and clicks within this long of the message's send are taken for link scanners (mail
     * gateways fetch every link and image seconds after delivery): flagged as bots, left out of the
     * unique counts. 0: only user agents decide (tests that open mail the moment it arrives).
     */
    TRACKING_SCANNER_WINDOW_MS: z.coerce
      .number({ message: 'expected a duration in milliseconds' })
      .int('expected a whole number of milliseconds')
      .min(0, 'expected 0 or a positive number of milliseconds')
      .default(5_000),
    /**
     * Hits of one tracking token within one window of this length (clock-aligned: the hour by
     * default) are one `opened`/`clicked` event and one webhook, the rest counted on it (`repeats`),
     * so nobody looping on a token can write an event and a webhook per request. At least a second.
     */
    TRACKING_REPEAT_WINDOW_MS: z.coerce
      .number({ message: 'expected a duration in milliseconds' })
      .int('expected a whole number of milliseconds')
      .min(1_000, 'expected at least 1000 milliseconds')
      .max(2_592_000_000, 'expected at most 30 days')
      .default(3_600_000),
    /** A message's events (`message_events`, its timeline) are deleted by the nightly cleanup after this many days. */
    EVENT_RETENTION_DAYS: positiveInt(30, 36_500),
    /**
     * Failed lane jobs Redis keeps per lane (newest first) and for how long: the `failed` rows in
     * PostgreSQL and the dead-letter queue are the record, these are for a look at BullMQ's own view.
     */
    FAILED_JOBS_MAX_COUNT: positiveInt(1_000, 1_000_000),
    FAILED_JOBS_MAX_AGE_HOURS: positiveInt(24, 8_760),
    /**
     * The dead-letter queue keeps at most this many dead letters (the newest) for at most this many
     * days; older ones are trimmed from Redis and stay `failed` messages in PostgreSQL.
     */
    DEAD_LETTER_MAX_COUNT: positiveInt(10_000, 1_000_000),
    DEAD_LETTER_MAX_AGE_DAYS: positiveInt(30, 3_650),
    /** Every pacer call to Redis gives up after this long, so an unreachable Redis fails a tick fast. */
    PACER_REDIS_TIMEOUT_MS: durationMs(2_000),
    /** How many tenants get their own series in the worker's metrics (largest backlogs; worst bounce and complaint rates); 0: none. */
    METRICS_TOP_TENANTS: z.coerce
      .number({ message: 'expected a whole number' })
      .int('expected a whole number')
      .min(0, 'expected 0 or more')
      .max(100, 'expected at most 100 (each tenant is a series of its own)')
      .default(10),
    ...SUBMISSION_ENV,
  })
  .superRefine((env, ctx) => {
    refineSubmission(env, ctx)
    if (env.NODE_ENV === 'production' && KNOWN_DEFAULT_SECRETS.has(env.SESSION_SECRET)) {
      ctx.addIssue({
        code: 'custom',
        path: ['SESSION_SECRET'],
        message:
          'must be set to a random value of at least 32 characters in production (this is a published default)',
      })
    }
    if (
      env.NODE_ENV === 'production' &&
      env.DKIM_ENCRYPTION_KEY.some((key) => key.key.equals(developmentDkimKey))
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['DKIM_ENCRYPTION_KEY'],
        message:
          'must be set to 32 random bytes in base64 in production (`openssl rand -base64 32`; this is a published default)',
      })
    }
    if (env.NODE_ENV === 'production') {
      const published = env.UNSUBSCRIBE_SECRET.filter((key) => KNOWN_DEFAULT_SECRETS.has(key.secret))
      if (published.length > 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['UNSUBSCRIBE_SECRET'],
          message: `must be set to random values of at least 32 characters in production (key id ${published
            .map((key) => key.kid)
            .join(', ')} is a published default)`,
        })
      }
    }
    if (
      env.NODE_ENV === 'production' &&
      env.WEBHOOK_ALLOW_PRIVATE &&
      !env.WEBHOOK_ALLOW_PRIVATE_IN_PRODUCTION
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['WEBHOOK_ALLOW_PRIVATE'],
        message:
          'must not be true in production (NODE_ENV=production): it lets any tenant point webhooks at loopback, private and cloud metadata addresses, and sends them over plain http',
      })
    }
    const shared = Object.entries(env.EGRESS_POOLS).flatMap(([name, addresses]) =>
      addresses
        .filter((address) => env.EGRESS_ADDRESSES.includes(address))
        .map((address) => `${address} (${name})`),
    )
    if (shared.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['EGRESS_POOLS'],
        message: `an address of a dedicated pool must not also be in EGRESS_ADDRESSES (the shared pool): ${shared.join(', ')}`,
      })
    }
    if (env.NODE_ENV === 'production' && env.MX_ALLOW_PRIVATE) {
      ctx.addIssue({
        code: 'custom',
        path: ['MX_ALLOW_PRIVATE'],
        message:
          'must not be true in production (NODE_ENV=production): a recipient domain whose MX points at a loopback or private address would have Fairlane deliver into its own network',
      })
    }
    if (env.WEBHOOK_SLOW_MS !== undefined && env.WEBHOOK_SLOW_MS >= env.WEBHOOK_TIMEOUT_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['WEBHOOK_SLOW_MS'],
        message: `must be below WEBHOOK_TIMEOUT_MS (${env.WEBHOOK_TIMEOUT_MS} ms): an answer slower than the timeout is a timeout`,
      })
    }
    if (!env.REDIS_CLUSTER && env.REDIS_URL.includes(',')) {
      ctx.addIssue({
        code: 'custom',
        path: ['REDIS_URL'],
        message:
          'lists several nodes, which only a Redis Cluster takes: set REDIS_CLUSTER=true, or give one redis:// URL',
      })
    }
    if (env.PLANS !== undefined && env.PLANS_FILE !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['PLANS_FILE'],
        message: 'must not be set together with PLANS: give the named plans one way',
      })
    }
    if (env.SEND_LOCK_MS < env.SMTP_TIMEOUT_MS * 3) {
      ctx.addIssue({
        code: 'custom',
        path: ['SEND_LOCK_MS'],
        message: `must be at least 3 × SMTP_TIMEOUT_MS (${env.SMTP_TIMEOUT_MS * 3} ms) so a slow send keeps its claim`,
      })
    }
  })

export type Config = z.infer<typeof envSchema>

/** DATABASE_DIRECT_URL, else DATABASE_URL: where LISTEN, migrations and other session state go. */
export function databaseDirectUrl(config: Pick<Config, 'DATABASE_URL' | 'DATABASE_DIRECT_URL'>): string {
  return config.DATABASE_DIRECT_URL ?? config.DATABASE_URL
}
