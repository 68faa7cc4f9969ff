'use client'

import Papa, { type ParseResult, type Parser } from 'papaparse'
import { useId, useRef, useState } from 'react'
import { detectDelimiter } from './detect-delimiter'
import { BatchSender, emptyReport, type ImportReport, ImportStopped, type PendingRow } from './import-batches'
import { ImportReportView } from './import-report'

type Phase = { kind: 'idle' } | { kind: 'running' } | { kind: 'done' } | { kind: 'stopped'; message: string }

const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`

/**
 * Parses the chosen file in the browser with papaparse, chunk by chunk, pausing the parser while each
 * batch is upserted, so memory stays flat however long the file is and the bar moves per batch.
 */
export function CsvImport({ maxBytes, batchRows }: { maxBytes: number; batchRows: number }) {
  const fileId = useId()
  const [fileError, setFileError] = useState<string | null>(null)
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' })
  const [progress, setProgress] = useState({ bytes: 0, total: 0 })
  const [report, setReport] = useState<ImportReport | null>(null)
  const [fileName, setFileName] = useState('')
  const input = useRef<HTMLInputElement>(null)

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
    setProgress({ bytes: 0, total: file.size })
    const current = emptyReport()
    setReport({ ...current })
    setPhase({ kind: 'running' })
    file
      .slice(0, 64 * 1024)
      .text()
      .then(
        (sample) => run(file, current, detectDelimiter(sample)),
        () => setPhase({ kind: 'stopped', message: `${file.name} could not be read.` }),
      )
  }

  function run(file: File, current: ImportReport, delimiter: string) {
    let sender: BatchSender | null = null
    let header: string[] | null = null
    let line = 0
    const pending: PendingRow[] = []
    let failed = false
    // The newline that ends the last line reads as one more, empty record: not a blank line of the file.
    let lastBlank = false
    const publish = () => setReport({ ...current, rejected: [...current.rejected] })
    const stop = (error: unknown) => {
      failed = true
      const message = error instanceof ImportStopped ? error.message : 'The import stopped unexpectedly.'
      publish()
      setPhase({ kind: 'stopped', message })
    }
    // Sends full batches (or everything, at the end); the header travels with each so batches stand alone.
    const flush = async (all: boolean) => {
      if (!sender) return
      while (pending.length >= batchRows || (all && pending.length > 0)) {
        await sender.send(pending.splice(0, batchRows))
        publish()
      }
    }
    const onChunk = (results: ParseResult<string[]>, parser: Parser) => {
      const broken = new Map<number, string>()
      for (const error of results.errors) {
        if (error.type === 'Quotes' && error.row !== undefined) broken.set(error.row, error.message)
      }
      results.data.forEach((cells, index) => {
        line += 1
        if (header === null) {
          header = cells
          sender = new BatchSender(cells, current)
          return
        }
        const problem = broken.get(index)
        lastBlank = problem === undefined && cells.every((cell) => cell.trim() === '')
        if (lastBlank) current.blank += 1
        else if (problem !== undefined) sender?.broken(line, null, `broken row: ${problem.toLowerCase()}`)
        else pending.push({ line, cells })
      })
      parser.pause()
      flush(false).then(
        () => {
          setProgress({ bytes: Math.min(results.meta.cursor, file.size), total: file.size })
          parser.resume()
        },
        (error: unknown) => {
          stop(error)
          parser.abort()
        },
      )
    }
    Papa.parse<string[]>(file, {
      worker: false,
      chunkSize: 256 * 1024,
      skipEmptyLines: false,
      delimiter,
      chunk: onChunk,
      complete: () => {
        if (failed) return
        if (header === null) {
          stop(new ImportStopped('The file has no header row.'))
          return
        }
        if (lastBlank) current.blank -= 1
        // Even a file without data rows sends one (empty) batch, so a bad header is still reported.
        const finish = pending.length === 0 && current.rows === 0 ? sender?.send([]) : flush(true)
        Promise.resolve(finish).then(
          () => {
            publish()
            setProgress({ bytes: file.size, total: file.size })
            setPhase({ kind: 'done' })
          },
          (error: unknown) => stop(error),
        )
      },
      error: (error) => stop(new ImportStopped(`The file could not be read: ${error.message}`)),
    })
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
          {report && phase.kind !== 'running' ? <ImportReportView report={report} /> : null}
        </section>
      ) : null}
    </>
  )
}
