import { type ParsedMail, simpleParser } from 'mailparser'

export interface ReportPart {
  /** The part's Content-Type without parameters, lowercased. */
  contentType: string
  /** Its header lines as written. */
  headers: string
  /** Its body as written (latin1, so 8-bit bytes survive). */
  body: string
}

export interface ParsedReport {
  mail: ParsedMail
  /** `report-type` of the top-level multipart/report. */
  reportType: string | undefined
  parts: ReportPart[]
}

/**
 * Reads a multipart/report back the way a bounce processor does: mailparser for the top-level
 * headers, then the parts split at the boundary mailparser found, byte for byte, so a test sees the
 * message/delivery-status and message/feedback-report fields exactly as written (mailparser folds
 * some of those parts into `text`).
 */
export async function parseReport(raw: Buffer): Promise<ParsedReport> {
  const mail = await simpleParser(raw)
  const type = mail.headers.get('content-type') as { value: string; params: Record<string, string> }
  if (type.value !== 'multipart/report') throw new Error(`not a multipart/report: ${type.value}`)
  const boundary = type.params.boundary
  if (!boundary) throw new Error('multipart/report without a boundary')
  const text = raw.toString('latin1')
  const sections = text.split(`\r\n--${boundary}`)
  const closing = sections.at(-1) ?? ''
  if (!closing.startsWith('--')) throw new Error('the closing boundary is missing')
  const parts = sections.slice(1, -1).map((section) => {
    const content = section.replace(/^\r\n/, '')
    const blank = content.indexOf('\r\n\r\n')
    const headers = content.slice(0, blank)
    const contentType =
      /^content-type:\s*([^;\r\n]+)/im.exec(headers)?.[1]?.trim().toLowerCase() ?? 'text/plain'
    return { contentType, headers, body: content.slice(blank + 4) }
  })
  return { mail, reportType: type.params['report-type'], parts }
}

/**
 * The field groups of a message/delivery-status or message/feedback-report body (groups separated by
 * blank lines, folded lines unfolded): each a map from the lowercased field name to its values.
 */
export function fieldGroups(body: string): Array<Map<string, string[]>> {
  return body
    .replace(/\r\n(?=[ \t])/g, '')
    .split(/\r\n\r\n+/)
    .map((group) => group.trim())
    .filter((group) => group !== '')
    .map((group) => {
      const fields = new Map<string, string[]>()
      for (const line of group.split('\r\n')) {
        const colon = line.indexOf(':')
        if (colon < 0) throw new Error(`not a field: ${JSON.stringify(line)}`)
        const name = line.slice(0, colon).trim().toLowerCase()
        fields.set(name, [...(fields.get(name) ?? []), line.slice(colon + 1).trim()])
      }
      return fields
    })
}

/** The one value of a field, failing the test when it is absent or repeated. */
export function one(group: Map<string, string[]> | undefined, name: string): string {
  const values = group?.get(name.toLowerCase()) ?? []
  if (values.length !== 1) throw new Error(`expected one ${name}, found ${values.length}`)
  return values[0] as string
}
