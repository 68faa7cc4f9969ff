import { type SQL, sql } from 'drizzle-orm'
import { type AnyPgColumn, timestamp } from 'drizzle-orm/pg-core'

/**
 * Column helpers shared by the table groups. Column names are spelled out in snake_case rather than
 * derived with drizzle's `casing` option: the names are then the same for every drizzle instance
 * (ours, better-auth's adapter, drizzle-kit) and constraint names never come out half camelCase.
 */

/** Every instant is stored with its time zone; a bare `timestamp` would depend on the session's zone. */
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true })

export const createdAt = () => timestamptz('created_at').notNull().defaultNow()

/** `$onUpdate` keeps it current on drizzle updates; raw SQL updates must set it themselves. */
export const updatedAt = () =>
  timestamptz('updated_at')
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date())

/** `column IN ('a', 'b')` for a CHECK constraint; the values come from `literals.ts`, never from input. */
export function oneOf(column: AnyPgColumn, values: readonly string[]): SQL {
  return sql`${column} in (${sql.raw(values.map((value) => `'${value}'`).join(', '))})`
}
