import { type DataColumn, DataTable } from '@/components/data-table'
import styles from './api-docs.module.css'
import { Prose } from './prose'
import type { JsonSchema } from './schema-summary'
import { SchemaType, SchemaView } from './schema-view'

interface MediaType {
  schema?: JsonSchema
  example?: unknown
  examples?: Record<string, { summary?: string; value: unknown }>
}

export interface DocumentedOperation {
  operationId?: string
  summary?: string
  description?: string
  security?: unknown[]
  parameters?: Parameter[]
  requestBody?: { content?: Record<string, MediaType> }
  responses?: Record<string, DocumentedResponse>
}

interface Parameter {
  name: string
  in: string
  required?: boolean
  description?: string
  schema?: JsonSchema
}

interface DocumentedResponse {
  description?: string
  headers?: Record<string, unknown>
  content?: Record<string, MediaType>
}

const PARAMETER_COLUMNS: DataColumn<Parameter>[] = [
  {
    header: 'Name',
    className: styles.nowrap,
    headerClassName: styles.nowrap,
    cell: (parameter) => (
      <>
        <code>{parameter.name}</code>
        {parameter.required ? <span className="muted"> required</span> : null}
      </>
    ),
  },
  {
    header: 'In',
    className: styles.nowrap,
    headerClassName: styles.nowrap,
    cell: (parameter) => parameter.in,
  },
  { header: 'Description', cell: (parameter) => <Prose text={parameter.description} /> },
]

const RESPONSE_COLUMNS: DataColumn<[status: string, response: DocumentedResponse]>[] = [
  {
    header: 'Status',
    className: styles.nowrap,
    headerClassName: styles.nowrap,
    cell: ([status]) => <strong>{status}</strong>,
  },
  {
    header: 'Meaning',
    cell: ([, response]) => {
      const headers = Object.keys(response.headers ?? {})
      return (
        <>
          <Prose text={response.description} />
          {headers.length > 0 ? <span className="muted"> Headers: {headers.join(', ')}.</span> : null}
        </>
      )
    },
  },
  {
    header: 'Body',
    className: styles.nowrap,
    headerClassName: styles.nowrap,
    cell: ([, response]) => {
      const schema = response.content?.['application/json']?.schema
      const otherType = Object.keys(response.content ?? {}).find((type) => type !== 'application/json')
      return schema ? <SchemaType schema={schema} /> : otherType ? <code>{otherType}</code> : null
    },
  },
]

/** One operation: what it does, its parameters, its body with examples, and every answer it gives. */
export function OperationView({
  method,
  path,
  operation,
}: {
  method: string
  path: string
  operation: DocumentedOperation
}) {
  const body = operation.requestBody?.content?.['application/json']
  // A body that is not JSON (a CSV import): its media type and example, as text.
  const [textType, textBody] = Object.entries(operation.requestBody?.content ?? {}).find(
    ([type]) => type !== 'application/json',
  ) ?? [null, null]
  const headingId = `${operation.operationId ?? `${method}-${path}`}-title`
  return (
    <section className={`card ${styles.operation}`} id={operation.operationId} aria-labelledby={headingId}>
      <h3 id={headingId}>
        <span className={styles.method}>{method.toUpperCase()}</span> <code>{path}</code>
        <span>{operation.summary}</span>
      </h3>
      <p>
        <Prose text={operation.description} />
      </p>
      {operation.security?.length === 0 ? <p className="muted">No API key needed.</p> : null}

      {operation.parameters?.length ? (
        <>
          <h4>Parameters</h4>
          <DataTable
            label="Parameters"
            columns={PARAMETER_COLUMNS}
            rows={operation.parameters}
            rowKey={(parameter) => `${parameter.in}-${parameter.name}`}
          />
        </>
      ) : null}

      {body?.schema ? (
        <>
          <h4>Request body</h4>
          <SchemaView schema={body.schema} />
          {Object.entries(body.examples ?? {}).map(([name, example]) => (
            <details key={name} className={styles.example}>
              <summary>Example: {example.summary ?? name}</summary>
              <pre className="code-block">{JSON.stringify(example.value, null, 2)}</pre>
            </details>
          ))}
        </>
      ) : textType !== null ? (
        <>
          <h4>Request body</h4>
          <p>
            <code>{textType}</code>
          </p>
          {typeof textBody?.example === 'string' ? (
            <details className={styles.example}>
              <summary>Example</summary>
              <pre className="code-block">{textBody.example}</pre>
            </details>
          ) : null}
        </>
      ) : null}

      <h4>Responses</h4>
      <DataTable
        label="Responses"
        columns={RESPONSE_COLUMNS}
        rows={Object.entries(operation.responses ?? {})}
        rowKey={([status]) => status}
      />
    </section>
  )
}
