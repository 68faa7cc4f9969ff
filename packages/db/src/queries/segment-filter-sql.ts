import { createdBoundary, type FilterCondition, type SegmentFilter } from '@fairlane/core'
import { and, type SQL, sql } from 'drizzle-orm'
import { contacts } from '../schema'

/**
 * A segment filter as a WHERE condition on contacts. Every attribute name and value is a bound
 * parameter (never spliced into the text), so a key or value such as `x') or true --` is only ever
 * compared, whatever the caller validated.
 *
 * Equality is written as containment, `attributes @> '{"city":"Berlin"}'`, which the GIN index on
 * `attributes` answers. Values compare as text (as `{{city}}` renders them): a value that reads as a
 * number or true/false also matches that JSON number or boolean, through a second containment
 * OR-ed in (a BitmapOr of two index scans, still no table scan).
 */
export interface FilterColumns {
  attributes: SQL | typeof contacts.attributes
  createdAt: SQL | typeof contacts.createdAt
}

const DEFAULT_COLUMNS: FilterColumns = { attributes: contacts.attributes, createdAt: contacts.createdAt }

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?$/

/** The JSON values that render as `value`: the string itself, and the number or boolean it spells. */
function jsonValuesOf(value: string): (string | number | boolean)[] {
  const values: (string | number | boolean)[] = [value]
  if (NUMBER.test(value) && Number.isFinite(Number(value))) values.push(Number(value))
  if (value === 'true' || value === 'false') values.push(value === 'true')
  return values
}

function containsAny(columns: FilterColumns, attribute: string, values: readonly string[]): SQL {
  const documents = [...new Set(values)]
    .flatMap(jsonValuesOf)
    .map((value) => JSON.stringify({ [attribute]: value }))
  return sql`(${sql.join(
    documents.map((document) => sql`${columns.attributes} @> ${document}::jsonb`),
    sql` or `,
  )})`
}

function conditionSql(condition: FilterCondition, columns: FilterColumns): SQL {
  switch (condition.op) {
    case 'equals':
      return containsAny(columns, condition.attribute, [condition.value])
    case 'not-equals':
      // A contact without the attribute is "not Berlin" too; `city exists` narrows it down.
      return sql`not ${containsAny(columns, condition.attribute, [condition.value])}`
    case 'in':
      return containsAny(columns, condition.attribute, condition.values)
    case 'exists':
      // `?` is served by the index; an empty value (a blank CSV cell) does not count as having it.
      return sql`(${columns.attributes} ? ${condition.attribute}::text and coalesce(${columns.attributes} ->> ${condition.attribute}::text, '') <> '')`
    case 'created-before':
      return sql`${columns.createdAt} < ${createdBoundary(condition).toISOString()}::timestamptz`
    case 'created-after':
      return sql`${columns.createdAt} >= ${createdBoundary(condition).toISOString()}::timestamptz`
  }
}

/** All conditions (AND) on `contacts` (or on the given column expressions, e.g. an alias `c`). */
export function segmentFilterSql(filter: SegmentFilter, columns: FilterColumns = DEFAULT_COLUMNS): SQL {
  return and(...filter.conditions.map((condition) => conditionSql(condition, columns))) ?? sql`true`
}
