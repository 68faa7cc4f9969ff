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
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: JsonSchema }[]
  requestBody?: { content?: Record<string, MediaType> }
  responses?: Record<
    string,
    { description?: string; headers?: Record<string, unknown>; content?: Record<string, MediaType> }
  >
}

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
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col" className={styles.nowrap}>
                    Name
                  </th>
                  <th scope="col" className={styles.nowrap}>
                    In
                  </th>
                  <th scope="col">Description</th>
                </tr>
              </thead>
              <tbody>
                {operation.parameters.map((parameter) => (
                  <tr key={`${parameter.in}-${parameter.name}`}>
                    <td className={styles.nowrap}>
                      <code>{parameter.name}</code>
                      {parameter.required ? <span className="muted"> required</span> : null}
                    </td>
                    <td className={styles.nowrap}>{parameter.in}</td>
                    <td>
                      <Prose text={parameter.description} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
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
      <div className="table-wrap">
        <table className="table">
          <thead>
            <tr>
              <th scope="col" className={styles.nowrap}>
                Status
              </th>
              <th scope="col">Meaning</th>
              <th scope="col" className={styles.nowrap}>
                Body
              </th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(operation.responses ?? {}).map(([status, response]) => {
              const schema = response.content?.['application/json']?.schema
              const otherType = Object.keys(response.content ?? {}).find(
                (type) => type !== 'application/json',
              )
              const headers = Object.keys(response.headers ?? {})
              return (
                <tr key={status}>
                  <td className={styles.nowrap}>
                    <strong>{status}</strong>
                  </td>
                  <td>
                    <Prose text={response.description} />
                    {headers.length > 0 ? (
                      <span className="muted"> Headers: {headers.join(', ')}.</span>
                    ) : null}
                  </td>
                  <td className={styles.nowrap}>
                    {schema ? <SchemaType schema={schema} /> : otherType ? <code>{otherType}</code> : null}
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
    </section>
  )
}
