import {
  exportSuppressions,
  importSuppressions,
  MAX_SUPPRESSION_CSV_BYTES,
  type SuppressionEntry,
  type SuppressionImportReport,
} from '@fairlane/core'
import type { Executor } from '@fairlane/db'
import { createSuppressionStore } from '@fairlane/db/queries/suppressions'
import Papa from 'papaparse'
import { readCsvText } from '../../csv/csv-records'
import { readTextBody } from '../http/read-text-body'
import type { Logger } from '../logger'

/**
 * The suppression list as CSV, both ways, for `/api/v1/suppressions/import|export` (API key) and the
 * Suppressions page's `/suppressions/import|export` (session): the same parsing, checks and columns.
 */

export const SUPPRESSION_CSV_MEDIA_TYPES = ['text/csv', 'text/plain'] as const

/** Reads the request's CSV (at most MAX_SUPPRESSION_CSV_BYTES) and imports its rows for the tenant. */
export async function importSuppressionsCsv(
  request: Request,
  input: { tenantId: string; db: Executor },
): Promise<SuppressionImportReport> {
  const text = await readTextBody(request, {
    maxBytes: MAX_SUPPRESSION_CSV_BYTES,
    mediaTypes: SUPPRESSION_CSV_MEDIA_TYPES,
  })
  return importSuppressions(
    {
      tenantId: input.tenantId,
      records: readCsvText(text),
      query: Object.fromEntries(new URL(request.url).searchParams),
    },
    { store: createSuppressionStore(input.db) },
  )
}

export const SUPPRESSION_CSV_FIELDS = ['email', 'reason', 'scope', 'detail', 'created_at'] as const

function csvLines(entries: readonly SuppressionEntry[], withHeader: boolean): string {
  const header = withHeader ? `${SUPPRESSION_CSV_FIELDS.join(',')}\r\n` : ''
  if (entries.length === 0) return header
  const rows = Papa.unparse(
    entries.map((entry) => [
      entry.email,
      entry.reason,
      entry.scope,
      entry.detail ?? '',
      entry.createdAt.toISOString(),
    ]),
    // A detail is a remote server's words: a cell starting with = + - @ is kept from running as a
    // spreadsheet formula (a leading '), which the import takes off again.
    { escapeFormulae: true, newline: '\r\n' },
  )
  return `${header}${rows}\r\n`
}

/**
 * The tenant's entries matching `query` (`email`, `reason`, `scope`, as the list takes them) as a CSV
 * download, read a keyset page at a time while the client reads, so the list's length never sits in
 * memory. A bad query is refused before the answer starts; a failure part-way cuts the download
 * (a short file, never a wrong one) and is logged.
 */
export function exportSuppressionsCsv(input: {
  tenantId: string
  query: Record<string, string>
  db: Executor
  logger: Logger
  now: Date
}): Response {
  const pages = exportSuppressions(
    { tenantId: input.tenantId, query: input.query },
    { store: createSuppressionStore(input.db) },
  )[Symbol.asyncIterator]()
  const encoder = new TextEncoder()
  let first = true
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await pages.next()
        if (next.done) {
          if (first) controller.enqueue(encoder.encode(csvLines([], true)))
          controller.close()
          return
        }
        controller.enqueue(encoder.encode(csvLines(next.value, first)))
        first = false
      } catch (error) {
        input.logger.error({ err: error, tenantId: input.tenantId }, 'suppression export failed part-way')
        controller.error(error)
      }
    },
    async cancel() {
      await pages.return?.()
    },
  })
  const day = input.now.toISOString().slice(0, 10)
  return new Response(body, {
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="suppressions-${day}.csv"`,
      'cache-control': 'no-store',
    },
  })
}
