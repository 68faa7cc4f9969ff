import { z } from 'zod'

/**
 * The SMTP submission server's variables (apps/submission), part of the one schema in `env.ts`:
 * spread into it so every process parses the same environment, refined there by `refineSubmission`.
 */

const anyPort = () =>
  z.coerce
    .number({ message: 'expected a port number' })
    .int('expected a whole port number')
    .min(0, 'expected a port between 0 and 65535')
    .max(65535, 'expected a port between 0 and 65535')
const port = (fallback: number) => anyPort().default(fallback)

const count = (fallback: number, max: number) =>
  z.coerce
    .number({ message: 'expected a whole number' })
    .int('expected a whole number')
    .min(1, 'expected a number of at least 1')
    .max(max, `expected a number of at most ${max}`)
    .default(fallback)

export const SUBMISSION_ENV = {
  /** SMTP submission with STARTTLS (RFC 6409); `pnpm start` uses 2587. */
  SUBMISSION_PORT: port(587),
  /** Implicit TLS (RFC 8314, "submissions", usually 465); unset: not served. Needs the cert and key. */
  SUBMISSION_TLS_PORT: anyPort().optional(),
  /** PEM files of the certificate (chain) and key STARTTLS and the TLS port present. */
  SUBMISSION_TLS_CERT: z.string().trim().min(1).optional(),
  SUBMISSION_TLS_KEY: z.string().trim().min(1).optional(),
  /** `true` (development only): AUTH before STARTTLS, the API key in clear text. Refused in production. */
  SUBMISSION_ALLOW_PLAINTEXT_AUTH: z
    .enum(['true', 'false'], { message: 'expected true or false' })
    .default('false')
    .transform((value) => value === 'true'),
  /** The name the server announces in its greeting and EHLO reply; unset: the machine's host name. */
  SUBMISSION_HOST: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9.-]{1,253}$/, 'expected a host name such as smtp.example.com')
    .optional(),
  /** Health and metrics of the submission server (`/health`, `/metrics`). */
  SUBMISSION_HTTP_PORT: port(9467),
  /**
   * Connections one client (an IPv4 address or an IPv6 /64) may hold open at once; the next is
   * answered `421 4.7.0`. Each may buffer a whole message (MAX_MESSAGE_BYTES).
   */
  SUBMISSION_MAX_CLIENTS_PER_ADDRESS: count(20, 1000),
  /** Failed AUTH attempts one client address may make within SUBMISSION_AUTH_LOCKOUT_MS before it is refused. */
  SUBMISSION_AUTH_FAILURES_PER_ADDRESS: count(5, 1000),
  /** How long failures are remembered and a client past the limit is refused (`454 4.7.0`), in ms. */
  SUBMISSION_AUTH_LOCKOUT_MS: count(5 * 60_000, 24 * 60 * 60_000),
}

type SubmissionEnv = {
  NODE_ENV: string
  SUBMISSION_ALLOW_PLAINTEXT_AUTH: boolean
  SUBMISSION_TLS_CERT?: string | undefined
  SUBMISSION_TLS_KEY?: string | undefined
  SUBMISSION_TLS_PORT?: number | undefined
}

/** The submission variables that depend on one another or on NODE_ENV. */
export function refineSubmission(env: SubmissionEnv, ctx: z.RefinementCtx): void {
  if (env.NODE_ENV === 'production' && env.SUBMISSION_ALLOW_PLAINTEXT_AUTH) {
    ctx.addIssue({
      code: 'custom',
      path: ['SUBMISSION_ALLOW_PLAINTEXT_AUTH'],
      message:
        'must not be true in production (NODE_ENV=production): API keys would cross the network in clear text',
    })
  }
  if ((env.SUBMISSION_TLS_CERT === undefined) !== (env.SUBMISSION_TLS_KEY === undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: [env.SUBMISSION_TLS_CERT === undefined ? 'SUBMISSION_TLS_CERT' : 'SUBMISSION_TLS_KEY'],
      message: 'SUBMISSION_TLS_CERT and SUBMISSION_TLS_KEY are set together (a certificate needs its key)',
    })
  }
  if (env.SUBMISSION_TLS_PORT !== undefined && env.SUBMISSION_TLS_CERT === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['SUBMISSION_TLS_PORT'],
      message: 'needs SUBMISSION_TLS_CERT and SUBMISSION_TLS_KEY (implicit TLS presents that certificate)',
    })
  }
}
