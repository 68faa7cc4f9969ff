import { z } from 'zod'

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

/** A development-only secret: refused when NODE_ENV=production (see the refinement below). */
export const DEVELOPMENT_SESSION_SECRET = 'fairlane-development-session-secret-change-me'

export const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

    DATABASE_URL: urlWithProtocols(
      ['postgres:', 'postgresql:'],
      'postgres://user@127.0.0.1:5432/fairlane',
    ).default('postgres://postgres@127.0.0.1:5432/fairlane'),
    DATABASE_POOL_MAX: positiveInt(10, 500),
    REDIS_URL: urlWithProtocols(['redis:', 'rediss:'], 'redis://127.0.0.1:6379').default(
      'redis://127.0.0.1:6379',
    ),
    /** BullMQ key prefix; wrap it in braces (`{fairlane}`) on Redis Cluster so a queue's keys share a slot. */
    QUEUE_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_{}-]{1,64}$/, 'expected 1-64 letters, digits, _, -, { or }')
      .default('fairlane'),
    SMTP_URL: urlWithProtocols(['smtp:', 'smtps:'], 'smtp://127.0.0.1:2525').default('smtp://127.0.0.1:2525'),
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

    SESSION_SECRET: z.string().min(32, 'expected at least 32 characters').default(DEVELOPMENT_SESSION_SECRET),
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

    HOST: z.string().min(1).default('127.0.0.1'),
    WEB_PORT: port(3000),
    WORKER_METRICS_PORT: port(9464),
    /** The lanes this worker process serves (relay, sweeper, pacer and schedulers run in every one). */
    WORKER_LANES: laneList('critical,default,bulk'),
    /**
     * How `pnpm start` runs the worker: `single`, one process for every lane; `split`, the bulk lane in
     * `worker` and the transactional lanes (critical, default) in `worker-tx` (metrics on
     * `WORKER_METRICS_PORT` + 1), so a login code never waits for a busy bulk process's event loop.
     */
    WORKER_LAYOUT: z.enum(['single', 'split']).default('single'),
    /**
     * The worker process's scheduling priority (nice, 0–19; 0 = normal). A bulk-only worker sharing
     * cores with PostgreSQL, the web app and the transactional worker runs lower (`split` gives it 10),
     * so when the CPU is the limit the bulk lane yields it to login codes, not the other way round.
     */
    WORKER_NICE: z.coerce
      .number({ message: 'expected a whole number from 0 to 19' })
      .int('expected a whole number from 0 to 19')
      .min(0, 'expected a whole number from 0 to 19')
      .max(19, 'expected a whole number from 0 to 19')
      .default(0),
    MAILSINK_SMTP_PORT: port(2525),
    MAILSINK_HTTP_PORT: port(8025),
    MAILSINK_MAX_MESSAGES: positiveInt(50_000, 10_000_000),

    CRITICAL_CONCURRENCY: positiveInt(20, 1000),
    DEFAULT_CONCURRENCY: positiveInt(10, 1000),
    BULK_CONCURRENCY: positiveInt(20, 1000),
    /** Pooled SMTP connections per lane; each lane has its own pool so bulk never holds a critical slot. */
    CRITICAL_SMTP_CONNECTIONS: positiveInt(4, 100),
    DEFAULT_SMTP_CONNECTIONS: positiveInt(4, 100),
    BULK_SMTP_CONNECTIONS: positiveInt(8, 100),
    SMTP_TIMEOUT_MS: durationMs(10_000),

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
    /** Each tenant's bucket on each transactional lane (critical, default): mails per second and burst. */
    TRANSACTIONAL_RATE_PER_SEC: positiveInt(200, 100_000),
    TRANSACTIONAL_BURST: positiveInt(400, 100_000),

    /** The zone the worker's cron schedulers (nightly cleanup, daily rollup) and the rollup's days are read in. */
    SCHEDULE_TIME_ZONE: timeZone('UTC'),
    /** Admin audit log entries older than this many days are deleted by the nightly cleanup. */
    AUDIT_RETENTION_DAYS: positiveInt(365, 36_500),
    /** How many tenants (largest pending backlog first) get their own series in the worker's metrics; 0: none. */
    METRICS_TOP_TENANTS: z.coerce
      .number({ message: 'expected a whole number' })
      .int('expected a whole number')
      .min(0, 'expected 0 or more')
      .max(100, 'expected at most 100 (each tenant is a series of its own)')
      .default(10),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production' && env.SESSION_SECRET === DEVELOPMENT_SESSION_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['SESSION_SECRET'],
        message: 'must be set to a random value of at least 32 characters in production',
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
