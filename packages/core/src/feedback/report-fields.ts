/**
 * The field blocks of a `message/delivery-status` or `message/feedback-report` part: header-style
 * `Name: value` lines (RFC 5322 syntax, continuation lines folded with leading white space), in
 * groups separated by blank lines. A DSN's first group is about the message, each further group
 * about one recipient; a feedback report is one group.
 */
export type FieldGroup = ReadonlyMap<string, readonly string[]>

/** Fields and groups read from one part; more than this is not a report but an attack on the reader. */
const MAX_GROUPS = 200
const MAX_FIELDS_PER_GROUP = 100

export function parseFieldGroups(text: string): FieldGroup[] {
  const groups: FieldGroup[] = []
  let current = new Map<string, string[]>()
  let fields = 0
  let last: { name: string; index: number } | undefined
  const close = () => {
    if (current.size > 0) groups.push(current)
    current = new Map()
    fields = 0
    last = undefined
  }
  for (const line of text.split(/\r?\n|\r/)) {
    if (groups.length >= MAX_GROUPS) break
    if (line.trim() === '') {
      close()
      continue
    }
    if (/^[ \t]/.test(line)) {
      // A folded continuation of the previous field; without one it is noise, skipped.
      if (last) {
        const values = current.get(last.name) as string[]
        values[last.index] = `${values[last.index]} ${line.trim()}`
      }
      continue
    }
    const colon = line.indexOf(':')
    if (colon <= 0 || fields >= MAX_FIELDS_PER_GROUP) {
      last = undefined
      continue
    }
    const name = line.slice(0, colon).trim().toLowerCase()
    if (!/^[\x21-\x39\x3b-\x7e]+$/.test(name)) {
      last = undefined
      continue
    }
    const values = current.get(name) ?? []
    values.push(line.slice(colon + 1).trim())
    current.set(name, values)
    fields += 1
    last = { name, index: values.length - 1 }
  }
  close()
  return groups
}

/** The header block of a message (everything before its first blank line) as one field group. */
export function parseHeaderBlock(message: string): FieldGroup {
  const end = message.search(/\r?\n\r?\n/)
  const head = end === -1 ? message : message.slice(0, end)
  return parseFieldGroups(head)[0] ?? new Map()
}

export function field(group: FieldGroup | undefined, name: string): string | undefined {
  const value = group?.get(name)?.[0]
  return value === undefined || value === '' ? undefined : value
}

export function fields(group: FieldGroup | undefined, name: string): readonly string[] {
  return group?.get(name) ?? []
}

/**
 * The value of a typed field (`rfc822; bob@example.net`, `dns; mx.example.net`,
 * `smtp; 550 5.1.1 …`) without its type. A value with no `;` is taken whole.
 */
export function untyped(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  const semicolon = value.indexOf(';')
  const rest = (semicolon === -1 ? value : value.slice(semicolon + 1)).trim()
  return rest === '' ? undefined : rest
}

/** An address as written in a report (`<bob@example.net>`, `rfc822;Bob@Example.net`), lowercased. */
export function reportAddress(value: string | undefined): string | undefined {
  const bare = untyped(value)
    ?.replace(/^<(.*)>$/, '$1')
    .trim()
  if (bare === undefined || !/^[^\s@<>]+@[^\s@<>]+$/.test(bare)) return undefined
  return bare.toLowerCase()
}
