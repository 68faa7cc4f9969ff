import { fastestMs } from '@fairlane/testing/fastest-ms'
import { describe, expect, it } from 'vitest'
import { type LoggedError, scrubErrorText, serializeLogError, statementOf } from './log-errors'

/** Shaped as drizzle-orm 0.45's DrizzleQueryError around a postgres.js error. */
function drizzleError() {
  const cause = Object.assign(new Error('duplicate key value violates unique constraint "messages_pkey"'), {
    name: 'PostgresError',
    code: '23505',
    severity: 'ERROR',
    detail: 'Key (id)=(bob@example.com) already exists.',
    constraint_name: 'messages_pkey',
    table_name: 'messages',
  })
  Object.defineProperties(cause, {
    query: { value: 'insert into "messages" (id, to_address) values ($1, $2)', enumerable: false },
    parameters: { value: ['x', 'bob@example.com'], enumerable: false },
  })
  const params = ['bob@example.com', '{"code":"482913"}']
  const error = Object.assign(
    new Error(
      `Failed query: insert into "messages" (id, to_address, variables) values ($1, $2, $3)\nparams: ${params}`,
    ),
    { name: 'DrizzleQueryError', query: 'insert into "messages" (…)', params, cause },
  )
  return error
}

describe('serializeLogError', () => {
  it('keeps name, code, constraint and statement, and drops every parameter', () => {
    const logged = serializeLogError(drizzleError()) as LoggedError
    const line = JSON.stringify(logged)
    expect(line).not.toContain('bob@example.com')
    expect(line).not.toContain('482913')
    expect(logged).toMatchObject({
      type: 'DrizzleQueryError',
      message: 'Failed query: insert into "messages"',
      statement: 'insert into "messages"',
      cause: {
        type: 'PostgresError',
        code: '23505',
        constraint: 'messages_pkey',
        table: 'messages',
        statement: 'insert into "messages"',
        message: 'duplicate key value violates unique constraint "messages_pkey"',
      },
    })
    expect(logged.stack).toMatch(/^DrizzleQueryError: Failed query: insert into "messages"\n\s+at /)
  })

  it('scrubs an error logged as its message string, and addresses anywhere', () => {
    expect(serializeLogError(drizzleError().message)).toBe('Failed query: insert into "messages"')
    expect(serializeLogError(String(drizzleError()))).toBe(
      'DrizzleQueryError: Failed query: insert into "messages"',
    )
    expect(serializeLogError('451 4.7.1 <bob@example.com>: try later')).toBe(
      '451 4.7.1 <<address>>: try later',
    )
  })

  it('takes the quoted input out of PostgreSQL input errors', () => {
    expect(scrubErrorText('invalid input syntax for type uuid: "482913"')).toBe(
      'invalid input syntax for type uuid: <value>',
    )
  })

  it('names a statement by verb and table, even inside a CTE', () => {
    expect(statementOf('with inserted as (insert into "messages" (id) values ($1)) select 1')).toBe(
      'insert into "messages"',
    )
    expect(statementOf('update "messages" set "status" = $1 where "id" = $2')).toBe('update "messages"')
    expect(statementOf('select "id" from "messages" where "id" = $1')).toBe('select … from "messages"')
  })

  it('passes non-errors through and stops at a bounded cause depth', () => {
    expect(serializeLogError(42)).toBe(42)
    expect(serializeLogError({ a: 1 })).toEqual({ a: 1 })
    let error: Error = new Error('root')
    for (let depth = 0; depth < 10; depth += 1) error = new Error(`level ${depth}`, { cause: error })
    expect(JSON.stringify(serializeLogError(error))).not.toContain('root')
  })

  it('scrubs a 50,000-character error without an address in linear time', () => {
    const text = `Error: 550 ${'x'.repeat(50_000)}`
    expect(fastestMs(() => scrubErrorText(text))).toBeLessThan(50)
    expect(scrubErrorText(`to ann@example.com: ${text}`)).toBe(`to <address>: ${text}`)
  })

  it.each(['malformed ', 'invalid input value for '])(
    'scrubs 50,000 characters of "%s" without a colon in linear time',
    (unit) => {
      const text = unit.repeat(Math.ceil(50_000 / unit.length))
      expect(fastestMs(() => scrubErrorText(text))).toBeLessThan(50)
      expect(scrubErrorText(`${text}. malformed array literal: "secret"`)).not.toContain('secret')
    },
  )
})
