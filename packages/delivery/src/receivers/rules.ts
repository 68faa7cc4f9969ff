import { readFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import { hostPatternProblem, normalizeHostPattern } from './host-pattern'
import { consistencyIssues } from './rules-consistency'

/**
 * The receiver rules: which MX hosts make one receiving provider (MX rollup), each provider's
 * starting limits, the warm-up of a new egress address and how the back-off reacts to throttling.
 * They are data, not code: `RECEIVER_RULES` names a JSON file, and without it the repository's
 * `packages/delivery/receivers.default.json` applies. The file is validated strictly at boot, so a
 * typo (`perMinut`) or a negative limit stops the worker with the field named instead of being
 * silently ignored. JSON has no comments; a provider may carry a `description` string instead.
 *
 * Limits hold per egress address × provider: each local source address is its own sender to the
 * receivers, with its own budget at each of them. The default file's starting limits come from the
 * providers' published guidance, kept on the safe side because the back-off probes upwards anyway:
 * - Gmail: "Email sender guidelines" (support.google.com/a/answer/81126) and "Sending limits and IP
 *   warm-up": no published rate, but "increase sending volume slowly" and a quota tracked per IP
 *   and per authenticated domain; MX rollup of `*.google.com` and `*.googlemail.com` because Gmail
 *   and Google Workspace share the same receiving hosts.
 * - Microsoft: "Policies, practices and guidelines" for Outlook.com senders
 *   (sendersupport.olc.protection.outlook.com/pm/policies.aspx): S3150 blocks for senders that do
 *   not slow down after 4xx; consumer mail (`*.olc.protection.outlook.com`) and Microsoft 365
 *   (`*.mail.protection.outlook.com`, DANE hosts `*.mx.microsoft`) share one edge.
 * - Yahoo: "Sender Best Practices" (senders.yahooinc.com/best-practices) and its SMTP error codes
 *   (TSS04: "temporarily deferred due to unexpected volume"); few messages per connection.
 * - Apple iCloud: "Postmaster information for iCloud Mail" (support.apple.com/102322): small batches
 *   per connection.
 * The messages-per-connection and connection counts follow the community shaping defaults that
 * KumoMTA publishes from the same sources (Yahoo's 20 a connection is Yahoo's own figure).
 */

/** Starting limits at one provider for one egress address. */
export type ProviderLimits = {
  /** Connections open at once. */
  connections: number
  /** Messages sent over one connection before it is closed and another opened. */
  messagesPerConnection: number
  /** Messages a minute; the back-off starts here and probes upwards from its last cut. */
  perMinute: number
}

export type ProviderRule = {
  /** Lowercase letters, digits and `-`; never a dot, so it cannot collide with a domain-named provider. */
  name: string
  description?: string
  /** Host names or `*.suffix` patterns, lowercase, without a trailing dot. */
  mx: string[]
  limits: ProviderLimits
}

export type WarmupStep = { day: number; perDayPerProvider: number }

export type ReceiverRules = {
  description?: string
  providers: ProviderRule[]
  /** What a domain whose MX hosts match no rule gets: it is its own provider, named by the domain. */
  default: { limits: ProviderLimits }
  warmup: {
    /**
     * A new egress address's daily cap per provider, counted in *sending* days (days it sent at
     * least one message): each step holds from its day until the next step; day 1 comes first.
     */
    schedule: WarmupStep[]
    /** From this sending day on the address is warm: no daily cap. */
    warmAfterDay: number
    /**
     * The egress addresses that are warming (new to the receivers): the caps apply to these only;
     * every other address is taken as warm. Empty by default.
     */
    addresses: string[]
  }
  /** The share of each provider's rate kept for the critical lane (login codes), 0 to below 1. */
  criticalReserve: number
  backoff: {
    /** Multiplies the rate on a throttle reply (0 < decrease < 1). */
    decrease: number
    /** How long a throttled provider gets nothing at all before the probing starts. */
    pauseMs: number
    /** Messages a minute added to the rate for each minute without a throttle reply. */
    increasePerMinute: number
    /** The rate never drops below this, so a throttled provider keeps being probed. */
    minPerMinute: number
  }
}

/** The rules file that applies when `RECEIVER_RULES` is unset. */
export const DEFAULT_RECEIVER_RULES_PATH = fileURLToPath(
  new URL('../../receivers.default.json', import.meta.url),
)

export type ReceiverRulesIssue = { path: string; message: string }

/** A rules file that cannot be used; `issues` names every field that is wrong. */
export class ReceiverRulesError extends Error {
  readonly issues: ReceiverRulesIssue[]

  constructor(source: string, issues: ReceiverRulesIssue[]) {
    super(`${source}: ${issues.map((issue) => `${issue.path || '(file)'}: ${issue.message}`).join('; ')}`)
    this.name = 'ReceiverRulesError'
    this.issues = issues
  }
}

const wholeAtLeastOne = z
  .number({ error: 'expected a number' })
  .int({ error: 'expected a whole number' })
  .min(1, { error: 'expected a number of at least 1' })

const positive = z.number({ error: 'expected a number' }).positive({ error: 'expected a number above 0' })

const limitsSchema = z.strictObject({
  connections: wholeAtLeastOne,
  messagesPerConnection: wholeAtLeastOne,
  perMinute: positive,
})

const hostPatternSchema = z
  .string({ error: 'expected a host name or *.suffix' })
  .transform((value, context) => {
    const problem = hostPatternProblem(value)
    if (problem !== undefined) {
      context.addIssue({ code: 'custom', message: problem })
      return z.NEVER
    }
    return normalizeHostPattern(value)
  })

const providerSchema = z.strictObject({
  name: z
    .string({ error: 'expected a name' })
    .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, { error: 'expected 1-63 lowercase letters, digits or - (no dots)' }),
  description: z.string({ error: 'expected a string' }).optional(),
  mx: z.array(hostPatternSchema, { error: 'expected a list of host patterns' }).min(1, {
    error: 'expected at least one host pattern',
  }),
  limits: limitsSchema,
})

const rulesSchema = z
  .strictObject({
    description: z.string({ error: 'expected a string' }).optional(),
    providers: z.array(providerSchema, { error: 'expected a list of providers' }),
    default: z.strictObject({ limits: limitsSchema }),
    warmup: z.strictObject({
      schedule: z
        .array(z.strictObject({ day: wholeAtLeastOne, perDayPerProvider: wholeAtLeastOne }), {
          error: 'expected a list of { day, perDayPerProvider }',
        })
        .min(1, { error: 'expected at least the step of day 1' }),
      warmAfterDay: wholeAtLeastOne,
      addresses: z
        .array(
          z
            .string({ error: 'expected an IP address' })
            .refine((value) => isIP(value) !== 0, { error: 'expected an IP address such as 192.0.2.10' }),
          { error: 'expected a list of IP addresses' },
        )
        .default([]),
    }),
    criticalReserve: z
      .number({ error: 'expected a number' })
      .min(0, { error: 'expected a share from 0 to below 1' })
      .lt(1, { error: 'expected a share from 0 to below 1' }),
    backoff: z.strictObject({
      decrease: positive.lt(1, { error: 'expected a factor above 0 and below 1' }),
      pauseMs: wholeAtLeastOne,
      increasePerMinute: positive,
      minPerMinute: positive,
    }),
  })
  .superRefine((rules, context) => {
    for (const issue of consistencyIssues(rules)) context.addIssue({ code: 'custom', ...issue })
  })

/**
 * Validates a parsed rules file. Throws `ReceiverRulesError` naming each wrong field
 * (`RECEIVER_RULES: providers[1].limits.perMinut: unknown field`).
 */
export function parseReceiverRules(input: unknown, source = 'RECEIVER_RULES'): ReceiverRules {
  const result = rulesSchema.safeParse(input, { reportInput: true })
  if (!result.success) throw new ReceiverRulesError(source, issuesOf(result.error))
  return result.data
}

/**
 * Reads and validates a rules file (synchronously: it runs once at boot, before anything is sent).
 * Without a path, the repository's defaults. Errors name the file.
 */
export function loadReceiverRules(path: string = DEFAULT_RECEIVER_RULES_PATH): ReceiverRules {
  const source = `RECEIVER_RULES (${path})`
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : String(error)
    throw new ReceiverRulesError(source, [{ path: '', message: `cannot read the file (${reason})` }])
  }
  let input: unknown
  try {
    input = JSON.parse(text)
  } catch (error) {
    throw new ReceiverRulesError(source, [
      { path: '', message: `not valid JSON (${error instanceof Error ? error.message : String(error)})` },
    ])
  }
  return parseReceiverRules(input, source)
}

function issuesOf(error: z.ZodError): ReceiverRulesIssue[] {
  return error.issues.flatMap((issue) => {
    // Zod reports unknown keys on the object; name each key so the typo is the path.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: dotted([...issue.path, key]), message: 'unknown field' }))
    }
    const missing = issue.code === 'invalid_type' && issue.input === undefined
    return [{ path: dotted(issue.path), message: missing ? 'required' : issue.message }]
  })
}

/** `['providers', 1, 'limits']` → `providers[1].limits`. */
function dotted(path: readonly PropertyKey[]): string {
  let out = ''
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`
    else out += out === '' ? String(part) : `.${String(part)}`
  }
  return out
}
