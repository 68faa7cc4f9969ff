'use client'

import Papa from 'papaparse'
import { RejectedRowsTable } from '@/components/rejected-rows-table'
import type { ImportReport } from './import-batches'

/** Rows shown in the page; the download holds every one, so a long report is never cut short. */
const SHOWN_ROWS = 1000

export function ImportReportView({ report, listName }: { report: ImportReport; listName: string | null }) {
  const rejected = [...report.rejected].sort((a, b) => a.line - b.line)
  const imported = report.created + report.updated

  function download() {
    const csv = Papa.unparse({
      fields: ['line', 'email', 'reason'],
      data: rejected.map((row) => [row.line, row.email ?? '', row.reason]),
    })
    const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }))
    const link = document.createElement('a')
    link.href = url
    link.download = 'import-problems.csv'
    link.click()
    URL.revokeObjectURL(url)
  }

  return (
    <div data-testid="import-report">
      <dl className="stats">
        <div>
          <dt>Imported</dt>
          <dd data-testid="imported-count">
            {imported.toLocaleString('en')}
            <small>
              {report.created.toLocaleString('en')} new · {report.updated.toLocaleString('en')} updated
            </small>
          </dd>
        </div>
        <div>
          <dt>Rows not imported</dt>
          <dd data-testid="rejected-count">{rejected.length.toLocaleString('en')}</dd>
        </div>
        <div>
          <dt>Rows read</dt>
          <dd data-testid="rows-read">
            {report.rows.toLocaleString('en')}
            {report.blank > 0 ? <small>{report.blank.toLocaleString('en')} blank lines skipped</small> : null}
          </dd>
        </div>
      </dl>
      {listName !== null ? (
        <p data-testid="added-to-list">
          {report.addedToList.toLocaleString('en')} added to the list “{listName}” (contacts already on it are
          not counted).
        </p>
      ) : null}
      {report.ignoredColumns.length > 0 ? (
        <ul className="muted">
          {report.ignoredColumns.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      ) : null}
      {rejected.length === 0 ? (
        <p>Every row was imported.</p>
      ) : (
        <>
          <h3>Rows not imported</h3>
          <p className="muted">
            Line numbers count the header as line 1. Fix these rows and import the file again: rows already
            imported are updated, not duplicated.{' '}
            <button type="button" className="link-button" onClick={download}>
              Download this list as CSV
            </button>
          </p>
          {rejected.length > SHOWN_ROWS ? (
            <p>
              Showing the first {SHOWN_ROWS.toLocaleString('en')} of {rejected.length.toLocaleString('en')}.
              The download has all of them.
            </p>
          ) : null}
          <RejectedRowsTable rows={rejected} limit={SHOWN_ROWS} />
        </>
      )}
    </div>
  )
}
