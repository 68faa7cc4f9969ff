'use client'

import type { SuppressionImportReport } from '@fairlane/core'
import { useRouter } from 'next/navigation'
import { useId, useRef, useState } from 'react'
import { RejectedRowsTable } from '@/components/rejected-rows-table'

type Phase =
  | { kind: 'idle' }
  | { kind: 'running' }
  | { kind: 'done'; report: SuppressionImportReport }
  | { kind: 'stopped'; message: string }

/** Rows of the report shown in the page; a longer report says how many more there are. */
const SHOWN_ROWS = 500

const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`
const count = (n: number) => n.toLocaleString('en')

/**
 * Sends the chosen file as it is (`text/csv`) to `/suppressions/import`, which reads it with the API
 * import's code, and shows the report: what was added, and every row that was not, by line number.
 */
export function ImportSuppressions({ maxBytes, maxRows }: { maxBytes: number; maxRows: number }) {
  const fileId = useId()
  const input = useRef<HTMLInputElement>(null)
  const router = useRouter()
  const [fileError, setFileError] = useState<string | null>(null)
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' })

  async function start(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const file = input.current?.files?.[0]
    if (!file) return setFileError('Choose a CSV file first.')
    if (file.size === 0) return setFileError(`${file.name} is empty.`)
    if (file.size > maxBytes) {
      return setFileError(
        `${file.name} is ${megabytes(file.size)}; the limit is ${megabytes(maxBytes)}. Split it and import the parts one after another.`,
      )
    }
    setFileError(null)
    setPhase({ kind: 'running' })
    let response: Response
    try {
      response = await fetch('/suppressions/import', {
        method: 'POST',
        headers: { 'content-type': 'text/csv' },
        body: file,
      })
    } catch {
      return setPhase({
        kind: 'stopped',
        message: 'The connection to the server failed; nothing may have been imported. Try again.',
      })
    }
    const body = await response.json().catch(() => null)
    if (!response.ok) {
      const issue = body?.error?.details?.[0] as { path: string; message: string } | undefined
      const message =
        response.status === 401
          ? 'Your session has ended. Sign in again and import the file again.'
          : issue?.path === 'header' || issue?.path === 'body'
            ? issue.message
            : (body?.error?.message ?? `The server refused the file (HTTP ${response.status}).`)
      return setPhase({ kind: 'stopped', message: `Nothing was imported. ${message}` })
    }
    setPhase({ kind: 'done', report: body as SuppressionImportReport })
    router.refresh()
  }

  const running = phase.kind === 'running'
  return (
    <>
      <form onSubmit={start} className="form" noValidate>
        <div className="field">
          <label htmlFor={fileId}>CSV file</label>
          <span id={`${fileId}-hint`} className="hint">
            A header row with an email column (and optionally a detail column), or one address per line. At
            most {megabytes(maxBytes)} and {count(maxRows)} rows. The addresses are added by hand and stop
            every lane.
          </span>
          <input
            ref={input}
            id={fileId}
            name="file"
            type="file"
            accept=".csv,.tsv,.txt,text/csv,text/plain"
            aria-describedby={`${fileId}-hint${fileError ? ` ${fileId}-error` : ''}`}
            aria-invalid={fileError ? true : undefined}
            disabled={running}
          />
          {fileError ? (
            <p id={`${fileId}-error`} className="field-error" role="alert">
              {fileError}
            </p>
          ) : null}
        </div>
        <div>
          <button type="submit" className="button" disabled={running}>
            {running ? 'Importing…' : 'Import'}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {phase.kind === 'stopped' ? (
          <p className="form-error" role="alert">
            {phase.message}
          </p>
        ) : null}
        {phase.kind === 'done' ? <ImportReportView report={phase.report} /> : null}
      </div>
    </>
  )
}

function ImportReportView({ report }: { report: SuppressionImportReport }) {
  const rejected = [...report.rejected].sort((a, b) => a.line - b.line)
  return (
    <div data-testid="suppression-import-report">
      <p role="status">
        Import finished: {count(report.added)} added
        {report.widened > 0 ? `, ${count(report.widened)} widened from campaign-only to every lane` : ''},{' '}
        {count(report.alreadySuppressed)} already suppressed, {count(rejected.length)} not imported.
      </p>
      <p className="muted">
        {count(report.rows)} rows read
        {report.duplicates > 0
          ? `; ${count(report.duplicates)} repeated an earlier row and counted once`
          : ''}
        {report.blank > 0 ? `; ${count(report.blank)} blank lines skipped` : ''}.
        {report.header ? '' : ' The file had no header row: each line was read as one address.'}
      </p>
      {report.ignoredColumns.length > 0 ? (
        <ul className="muted">
          {report.ignoredColumns.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      ) : null}
      {rejected.length > 0 ? (
        <>
          <h3>Rows not imported</h3>
          <p className="muted">Line numbers count the first line of the file as line 1.</p>
          {rejected.length > SHOWN_ROWS ? (
            <p>
              Showing the first {count(SHOWN_ROWS)} of {count(rejected.length)}.
            </p>
          ) : null}
          <RejectedRowsTable rows={rejected} limit={SHOWN_ROWS} />
        </>
      ) : null}
    </div>
  )
}
