import type { FieldIssue } from '../errors/app-error'
import { type FilterCondition, filterIssues, parseSegmentFilter, type SegmentFilter } from './segment-filter'

/**
 * The filter as a person types it on the contacts page, one condition per line or joined by `and`:
 *
 *     city = Berlin and plan in (pro, team)
 *     vip exists
 *     created after 2026-01-01
 *
 * Operators: `=`, `!=`, `in (a, b)`, `exists`, `created before|after YYYY-MM-DD`. A value with a
 * comma, a parenthesis, a quote, surrounding spaces or the word "and" is written in double quotes
 * (`title = "Sales and Marketing"`). `formatFilter` writes a filter back in the same syntax.
 */
export type FilterTextResult = { ok: true; filter: SegmentFilter } | { ok: false; issues: FieldIssue[] }

const OPERATOR_HINT = 'use =, !=, in (…), exists, created before or created after'

/** Splits on `separator` where it is outside double quotes and parentheses. */
function splitOutside(text: string, separator: RegExp): string[] {
  const parts: string[] = []
  let depth = 0
  let quoted = false
  let start = 0
  for (let index = 0; index < text.length; index++) {
    const character = text[index]
    if (quoted) {
      if (character === '\\') index++
      else if (character === '"') quoted = false
      continue
    }
    if (character === '"') quoted = true
    else if (character === '(') depth++
    else if (character === ')') depth = Math.max(0, depth - 1)
    else if (depth === 0) {
      separator.lastIndex = index
      const match = separator.exec(text)
      if (match && match.index === index) {
        parts.push(text.slice(start, index))
        start = index + match[0].length
        index = start - 1
      }
    }
  }
  parts.push(text.slice(start))
  return parts
}

/** A value as typed: quoted (JSON string rules) or bare (trimmed). Null when the quotes do not close. */
function typedValue(raw: string): string | null {
  const text = raw.trim()
  if (!text.startsWith('"')) return text
  try {
    const parsed: unknown = JSON.parse(text)
    return typeof parsed === 'string' ? parsed : null
  } catch {
    return null
  }
}

type Parsed = { ok: true; condition: Record<string, unknown> } | { ok: false; message: string }

function parseCondition(text: string): Parsed {
  const created = /^created\s+(\S+)\s+(.*)$/i.exec(text)
  if (created) {
    const when = (created[1] ?? '').toLowerCase()
    if (when !== 'before' && when !== 'after') {
      return {
        ok: false,
        message: `unknown operator "created ${created[1]}": use created before or created after`,
      }
    }
    return { ok: true, condition: { op: `created-${when}`, date: (created[2] ?? '').trim() } }
  }
  const exists = /^(\S+)\s+exists$/i.exec(text)
  if (exists) return { ok: true, condition: { op: 'exists', attribute: exists[1] } }
  const inList = /^(\S+)\s+in\s*\((.*)\)$/is.exec(text)
  if (inList) {
    const values = splitOutside(inList[2] ?? '', /,/y).map(typedValue)
    if (values.some((value) => value === null)) return { ok: false, message: 'a quoted value is not closed' }
    return { ok: true, condition: { op: 'in', attribute: inList[1], values: values.filter((v) => v !== '') } }
  }
  const compare = /^([^\s=!]+)\s*(!=|=)\s*(.*)$/s.exec(text)
  if (compare) {
    const value = typedValue(compare[3] ?? '')
    if (value === null) return { ok: false, message: 'the quoted value is not closed' }
    return {
      ok: true,
      condition: { op: compare[2] === '=' ? 'equals' : 'not-equals', attribute: compare[1], value },
    }
  }
  const words = text.split(/\s+/)
  if (words.length < 2)
    return { ok: false, message: `expected an operator after "${words[0]}": ${OPERATOR_HINT}` }
  return { ok: false, message: `unknown operator "${words[1]}": ${OPERATOR_HINT}` }
}

/** Parses the typed filter; every problem is reported under `filter`, naming the condition and what is wrong. */
export function parseFilterText(text: string): FilterTextResult {
  // `and` is tried only where a run of white space starts (the lookbehind): tried from each of a long
  // run's characters, `\s+` would read the rest of the run each time, in quadratic time.
  const sources = splitOutside(text, /(?<!\s)\s+and\s+|\r?\n/iy)
    .map((part) => part.trim())
    .filter((part) => part !== '')
  if (sources.length === 0)
    return {
      ok: false,
      issues: [{ path: 'filter', message: 'Type at least one condition, e.g. city = Berlin' }],
    }
  const issues: FieldIssue[] = []
  const conditions: Record<string, unknown>[] = []
  sources.forEach((source, index) => {
    const parsed = parseCondition(source)
    if (parsed.ok) conditions.push(parsed.condition)
    else issues.push({ path: 'filter', message: `Condition ${index + 1} (${source}): ${parsed.message}` })
    if (!parsed.ok) conditions.push({ op: 'exists', attribute: '_' })
  })
  for (const issue of filterIssues({ conditions }, '')) {
    const index = Number(/^conditions\[(\d+)\]/.exec(issue.path)?.[1] ?? Number.NaN)
    const source = sources[index]
    const field = issue.path.replace(/^conditions\[\d+\]\.?/, '')
    const what = field === 'value' || field.startsWith('values') || field === 'date' ? `${field} ` : ''
    issues.push({
      path: 'filter',
      message:
        source === undefined ? issue.message : `Condition ${index + 1} (${source}): ${what}${issue.message}`,
    })
  }
  if (issues.length > 0) return { ok: false, issues }
  return { ok: true, filter: parseSegmentFilter({ conditions }) }
}

const NEEDS_QUOTES = /^\s|\s$|["(),\n]|\sand\s|^$/i

function formatValue(value: string): string {
  return NEEDS_QUOTES.test(value) ? JSON.stringify(value) : value
}

function formatCondition(condition: FilterCondition): string {
  switch (condition.op) {
    case 'equals':
      return `${condition.attribute} = ${formatValue(condition.value)}`
    case 'not-equals':
      return `${condition.attribute} != ${formatValue(condition.value)}`
    case 'in':
      return `${condition.attribute} in (${condition.values.map(formatValue).join(', ')})`
    case 'exists':
      return `${condition.attribute} exists`
    case 'created-before':
      return `created before ${condition.date}`
    case 'created-after':
      return `created after ${condition.date}`
  }
}

/** The filter in the syntax `parseFilterText` reads: `city = Berlin and plan in (pro, team)`. */
export function formatFilter(filter: SegmentFilter): string {
  return filter.conditions.map(formatCondition).join(' and ')
}
