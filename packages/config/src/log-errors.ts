/**
 * How every process logs errors (pino's `serializers`). Database errors carry what was being written:
 * drizzle's `DrizzleQueryError` puts every query parameter into its message ("Failed query: …
 * params: …") and a `params` field, and postgres.js errors carry `parameters`, `query` and a
 * `detail` that quotes key values — a recipient, a body, an OTP code. A logged error keeps what an
 * operator needs (name, message without parameters, SQLSTATE code, constraint, the statement's verb
 * and table) and nothing else: no parameters, no detail, no addresses, and a stack of frames only.
 */

/** The error fields worth logging, all free of values: which statement, which constraint, which code. */
export interface LoggedError {
  type: string
  message: string
  code?: string
  /** The statement's verb and table (`insert into "messages"`), never its values. */
  statement?: string
  constraint?: string
  table?: string
  column?: string
  severity?: string
  responseCode?: number
  stack?: string
  cause?: LoggedError | string
}

const MAX_CAUSE_DEPTH = 4
// Starts only where a run of address characters starts, as in the worker's `redactAddresses`: an
// error quoting a long remote reply is read in linear time.
const ADDRESS = /(?<![^\s<>()[\]"',;:@])[^\s<>()[\]"',;:@]+@[^\s<>()[\]"',;:@]+/g
// Anywhere in the text: `String(error)` puts "DrizzleQueryError: " in front of it.
const FAILED_QUERY = /Failed query: ([\s\S]*?)(?:\nparams: [\s\S]*)?$/
const STATEMENT = /\b(insert\s+into|update|delete\s+from|select\b[\s\S]*?\bfrom)\s+("[^"]+"|[\w.]+)/i
// PostgreSQL quotes the offending value in these: `invalid input syntax for type uuid: "abc"`. The
// type's name is short; bounded, a text repeating "malformed " without a colon is read in linear time.
const QUOTED_INPUT =
  /\b(invalid input (?:syntax|value) for [^:]{1,100}|malformed [^:]{1,100} literal): [\s\S]*/i

/** A log message or error message with parameters, quoted input values and addresses taken out. */
export function scrubErrorText(text: string): string {
  const scrubbed = text.replace(
    FAILED_QUERY,
    (_match, query: string) => `Failed query: ${statementOf(query)}`,
  )
  return scrubbed.replace(QUOTED_INPUT, '$1: <value>').replace(ADDRESS, '<address>')
}

/** `insert into "messages"` from a statement's text, or its first words; never a value. */
export function statementOf(query: string): string {
  const match = STATEMENT.exec(query)
  if (match?.[1] && match[2]) {
    const verb = match[1].toLowerCase().startsWith('select') ? 'select … from' : match[1].toLowerCase()
    return `${verb.replace(/\s+/g, ' ')} ${match[2]}`
  }
  return query.trim().split(/\s+/).slice(0, 3).join(' ')
}

/** pino serializer for `err` and `error`: an Error (or anything thrown, or a message string). */
export function serializeLogError(value: unknown): unknown {
  return serialize(value, 0)
}

function serialize(value: unknown, depth: number): LoggedError | string | unknown {
  if (typeof value === 'string') return scrubErrorText(value)
  if (typeof value !== 'object' || value === null) return value
  if (!(value instanceof Error) && !('message' in value)) return value
  const error = value as Error & Record<string, unknown>
  const message = scrubErrorText(typeof error.message === 'string' ? error.message : String(error.message))
  const logged: LoggedError = { type: error.name || error.constructor?.name || 'Error', message }
  const text = (key: string) => (typeof error[key] === 'string' ? (error[key] as string) : undefined)
  const code = text('code')
  if (code) logged.code = code
  const query = text('query') ?? FAILED_QUERY.exec(error.message ?? '')?.[1]
  if (query) logged.statement = statementOf(query)
  const constraint = text('constraint_name') ?? text('constraint')
  if (constraint) logged.constraint = constraint
  const table = text('table_name')
  if (table) logged.table = table
  const column = text('column_name')
  if (column) logged.column = column
  const severity = text('severity')
  if (severity) logged.severity = severity
  if (typeof error.responseCode === 'number') logged.responseCode = error.responseCode
  if (typeof error.stack === 'string') logged.stack = framesOf(error.stack, logged)
  if (error.cause !== undefined && depth < MAX_CAUSE_DEPTH) {
    logged.cause = serialize(error.cause, depth + 1) as LoggedError | string
  }
  return logged
}

/** The stack's first lines repeat the message (parameters included): keep the frames only. */
function framesOf(stack: string, logged: LoggedError): string {
  const frames = stack.split('\n').filter((line) => /^\s+at /.test(line))
  return [`${logged.type}: ${logged.message}`, ...frames].join('\n')
}

/** For `pino({ serializers: LOG_ERROR_SERIALIZERS })`: the keys errors are logged under. */
export const LOG_ERROR_SERIALIZERS = { err: serializeLogError, error: serializeLogError } as const
