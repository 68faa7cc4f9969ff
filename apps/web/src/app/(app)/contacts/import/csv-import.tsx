'use client'

import { useId, useRef, useState } from 'react'
import { type CsvPosition, readCsvBatch, START_OF_FILE } from '@/csv/csv-records'
import { detectDelimiter } from '@/csv/detect-delimiter'
import { BatchSender, emptyReport, type ImportReport, ImportStopped, type PendingRow } from './import-batches'
import { ImportReportView } from './import-report'

type Phase = { kind: 'idle' } | { kind: 'running' } | { kind: 'done' } | { kind: 'stopped'; message: string }

const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`

/**
 * Reads the chosen file in the browser (at most `maxBytes`, so the text fits a tab easily) and parses
 * it a batch of records at a time (src/csv/csv-records.ts, papaparse), sending each batch before parsing the
 * next, so the bar moves per batch and every line of the file ends up in the report.
 */
export function CsvImport({
  maxBytes,
  batchRows,
  lists,
}: {
  maxBytes: number
  batchRows: number
  /** The tenant's lists: the imported contacts may join one. */
  lists: { id: string; name: string }[]
}) {
  const fileId = useId()
  const [fileError, setFileError] = useState<string | null>(null)
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' })
  const [progress, setProgress] = useState({ bytes: 0, total: 0 })
  const [report, setReport] = useState<ImportReport | null>(null)
  const [fileName, setFileName] = useState('')
  const input = useRef<HTMLInputElement>(null)
  const listSelect = useRef<HTMLSelectElement>(null)
  const [listName, setListName] = useState<string | null>(null)

  function start(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const file = input.current?.files?.[0]
    if (!file) return setFileError('Choose a CSV file first.')
    if (file.size === 0) return setFileError(`${file.name} is empty.`)
    if (file.size > maxBytes) {
      return setFileError(
        `${file.name} is ${megabytes(file.size)}; the limit is ${megabytes(maxBytes)}. Split it into smaller files and import them one after another.`,
      )
    }
    setFileError(null)
    setFileName(file.name)
    const listId = listSelect.current?.value || null
    setListName(lists.find((list) => list.id === listId)?.name ?? null)
    setProgress({ bytes: 0, total: file.size })
    const current = emptyReport()
    setReport({ ...current })
    setPhase({ kind: 'running' })
    file.text().then(
      (text) => run(file, text, current, detectDelimiter(text.slice(0, 64 * 1024)), listId),
      () => setPhase({ kind: 'stopped', message: `${file.name} could not be read.` }),
    )
  }

  async function run(
    file: File,
    text: string,
    current: ImportReport,
    delimiter: string,
    listId: string | null,
  ) {
    let sender: BatchSender | null = null
    const publish = () => setReport({ ...current, rejected: [...current.rejected] })
    try {
      const pending: PendingRow[] = []
      // The newline that ends the last line reads as one more, empty record: not a blank line of the file.
      let lastBlank = false
      let position: CsvPosition | null = START_OF_FILE
      while (position !== null) {
        const batch = readCsvBatch(text, position, { delimiter, maxRecords: batchRows })
        for (const record of batch.records) {
          if (sender === null) {
            if (!('cells' in record)) throw new ImportStopped(`The header row is broken: ${record.problem}.`)
            sender = new BatchSender(record.cells, current, undefined, listId)
            continue
          }
          lastBlank = 'cells' in record && record.cells.every((cell) => cell.trim() === '')
          if (lastBlank) current.blank += 1
          else if ('cells' in record) pending.push({ line: record.line, cells: record.cells })
          else sender.broken(record.line, null, record.problem)
        }
        while (sender !== null && pending.length >= batchRows) {
          await sender.send(pending.splice(0, batchRows))
          publish()
        }
        position = batch.next
        const read = position === null ? text.length : position.offset
        setProgress({ bytes: Math.round((read / text.length) * file.size), total: file.size })
      }
      if (sender === null) throw new ImportStopped('The file has no header row.')
      if (lastBlank) current.blank -= 1
      // Even a file without data rows sends one (empty) batch, so a bad header is still reported.
      if (pending.length === 0 && current.rows === 0) await sender.send([])
      else if (pending.length > 0) await sender.send(pending.splice(0))
      publish()
      setProgress({ bytes: file.size, total: file.size })
      setPhase({ kind: 'done' })
    } catch (error) {
      const message = error instanceof ImportStopped ? error.message : 'The import stopped unexpectedly.'
      publish()
      setPhase({ kind: 'stopped', message })
    }
  }

  const percent = progress.total === 0 ? 0 : Math.round((progress.bytes / progress.total) * 100)
  const running = phase.kind === 'running'
  return (
    <>
      <form onSubmit={start} className="form card" noValidate>
        <div className="field">
          <label htmlFor={fileId}>CSV file</label>
          <span id={`${fileId}-hint`} className="hint">
            A header row with an email column is required; name is optional and every other column becomes an
            attribute. Commas, semicolons or tabs; at most {megabytes(maxBytes)}.
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
        {lists.length > 0 ? (
          <div className="field">
            <label htmlFor={`${fileId}-list`}>Add the imported contacts to a list</label>
            <select id={`${fileId}-list`} ref={listSelect} defaultValue="" disabled={running}>
              <option value="">No list</option>
              {lists.map((list) => (
                <option key={list.id} value={list.id}>
                  {list.name}
                </option>
              ))}
            </select>
          </div>
        ) : null}
        <div>
          <button type="submit" className="button" disabled={running}>
            {running ? 'Importing…' : 'Import'}
          </button>
        </div>
      </form>
      {phase.kind !== 'idle' ? (
        <section className="card" aria-labelledby="import-progress-heading">
          <h2 id="import-progress-heading">
            {phase.kind === 'running' ? `Importing ${fileName}` : `Import of ${fileName}`}
          </h2>
          <progress
            className="import-progress"
            max={100}
            value={percent}
            aria-label="Import progress"
            aria-valuetext={`${percent}% (${(report?.rows ?? 0).toLocaleString('en')} rows processed)`}
          />
          <p role="status" aria-live="polite">
            {phase.kind === 'running'
              ? `${(report?.rows ?? 0).toLocaleString('en')} rows processed (${percent}%)…`
              : phase.kind === 'done'
                ? 'Import finished.'
                : 'Import stopped.'}
          </p>
          {phase.kind === 'stopped' ? (
            <p className="form-error" role="alert">
              {phase.message}
            </p>
          ) : null}
          {report && phase.kind !== 'running' ? (
            <ImportReportView report={report} listName={listName} />
          ) : null}
        </section>
      ) : null}
    </>
  )
}
