/**
 * The browser half of a CSV import: sending batches of rows to `/contacts/import/rows` and folding
 * the answers into one report. No React here, so the import component stays about presentation.
 */

export interface RejectedRow {
  line: number
  email: string | null
  reason: string
}

export interface ImportReport {
  created: number
  updated: number
  rejected: RejectedRow[]
  blank: number
  rows: number
  ignoredColumns: string[]
  /** With a list chosen: how many contacts joined it. */
  addedToList: number
}

export interface PendingRow {
  line: number
  cells: string[]
}

interface BatchAnswer {
  columns: { emailIndex: number; ignored: string[] }
  created: number
  updated: number
  rejected: RejectedRow[]
  blank: number
  addedToList?: number
}

/** A refusal of the whole import (bad header, session ended); the report so far stays valid. */
export class ImportStopped extends Error {}

/** Same normalisation as the server's (`normaliseEmail`): trimmed, lowercased. */
const emailKey = (cell: string | undefined) => (cell ?? '').trim().toLowerCase()

export function emptyReport(): ImportReport {
  return { created: 0, updated: 0, rejected: [], blank: 0, rows: 0, ignoredColumns: [], addedToList: 0 }
}

/**
 * Tracks the emails already imported from this file so a repeat in a later batch is reported, not
 * upserted over the first (the server sees one batch at a time and catches repeats within it).
 */
export class BatchSender {
  private emailIndex: number | null = null
  private readonly seen = new Map<string, number>()

  constructor(
    private readonly header: string[],
    readonly report: ImportReport,
    private readonly url = '/contacts/import/rows',
    /** The list the imported contacts join, if one was chosen. */
    private readonly listId: string | null = null,
  ) {}

  async send(batch: PendingRow[]): Promise<void> {
    const rows: PendingRow[] = []
    for (const row of batch) {
      const first = this.emailIndex === null ? undefined : this.seen.get(emailKey(row.cells[this.emailIndex]))
      if (first === undefined) rows.push(row)
      else this.reject(row, first)
    }
    const answer = await this.post(rows)
    this.emailIndex = answer.columns.emailIndex
    this.report.ignoredColumns = answer.columns.ignored
    this.report.created += answer.created
    this.report.updated += answer.updated
    this.report.blank += answer.blank
    this.report.rows += batch.length
    this.report.addedToList += answer.addedToList ?? 0
    this.report.rejected.push(...answer.rejected)
    const bad = new Set(answer.rejected.map((row) => row.line))
    for (const row of rows) {
      const key = emailKey(row.cells[answer.columns.emailIndex])
      if (!bad.has(row.line) && key !== '' && !this.seen.has(key)) this.seen.set(key, row.line)
    }
  }

  /** A row the browser itself could not read (broken quotes). */
  broken(line: number, email: string | null, reason: string): void {
    this.report.rows += 1
    this.report.rejected.push({ line, email, reason })
  }

  private reject(row: PendingRow, first: number): void {
    const email = this.emailIndex === null ? null : (row.cells[this.emailIndex] ?? '').trim() || null
    this.report.rejected.push({
      line: row.line,
      email,
      reason: `duplicate email, first seen on line ${first} (that row is the one imported)`,
    })
  }

  private async post(rows: PendingRow[]): Promise<BatchAnswer> {
    let response: Response
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ header: this.header, rows, ...(this.listId ? { listId: this.listId } : {}) }),
      })
    } catch {
      throw new ImportStopped(
        'The connection to the server failed. Rows before this point were imported; import the file again to finish (rows already imported are updated, not duplicated).',
      )
    }
    if (response.ok) return (await response.json()) as BatchAnswer
    const body = (await response.json().catch(() => null)) as {
      error?: { message?: string; details?: { path: string; message: string }[] }
    } | null
    const headerIssue = body?.error?.details?.find((issue) => issue.path === 'header')
    if (headerIssue) throw new ImportStopped(headerIssue.message)
    if (response.status === 401)
      throw new ImportStopped('Your session has ended. Sign in again and re-import the file.')
    throw new ImportStopped(body?.error?.message ?? `The server refused a batch (HTTP ${response.status}).`)
  }
}
