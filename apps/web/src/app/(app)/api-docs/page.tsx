import type { Metadata } from 'next'
import Link from 'next/link'
import { buildOpenApiDocument } from '@/server/api/catalog/public-api'
import { OPENAPI_PATH } from '@/server/api/v1/openapi/document'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import styles from './api-docs.module.css'
import { type DocumentedOperation, OperationView } from './operation-view'
import { Prose } from './prose'
import type { JsonSchema } from './schema-summary'
import { SchemaView, schemaAnchor } from './schema-view'

export const metadata: Metadata = { title: 'API reference' }

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const

interface Listed {
  method: string
  path: string
  operation: DocumentedOperation & { tags?: string[] }
}

/**
 * The API reference: the same OpenAPI document `GET /api/v1/openapi.json` serves, rendered on the
 * server, operations grouped by tag, then the named schemas they refer to.
 */
export default async function ApiDocsPage() {
  await requireTenantSession()
  const { config } = container()
  const document = buildOpenApiDocument()
  const paths = (document.paths ?? {}) as Record<string, Record<string, DocumentedOperation>>
  const listed: Listed[] = Object.entries(paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({
      method,
      path,
      operation: item[method] as Listed['operation'],
    })),
  )
  const tags = document.tags ?? []
  const schemas = (document.components?.schemas ?? {}) as Record<string, JsonSchema>

  return (
    <>
      <div className="page-header">
        <h1>API reference</h1>
      </div>
      <p>
        <Prose text={document.info.description} />
      </p>
      <p className="muted">
        Base URL <code>{config.APP_URL}</code>. Authenticate with{' '}
        <code>Authorization: Bearer &lt;key&gt;</code> using a key from <Link href="/api-keys">API keys</Link>
        . The OpenAPI 3.1 document behind this page is at <a href={OPENAPI_PATH}>{OPENAPI_PATH}</a> (no key
        needed), for code generators and API clients.
      </p>

      <nav aria-label="Operations" className="card">
        <ul className={styles.toc}>
          {listed.map(({ method, path, operation }) => (
            <li key={`${method} ${path}`}>
              <a href={`#${operation.operationId}`}>
                {method.toUpperCase()} {path}
              </a>{' '}
              <span className="muted">{operation.summary}</span>
            </li>
          ))}
        </ul>
      </nav>

      {tags.map((tag) => (
        <section key={tag.name} aria-labelledby={`tag-${tag.name}`}>
          <h2 id={`tag-${tag.name}`}>{tag.name}</h2>
          <p className="muted">
            <Prose text={tag.description} />
          </p>
          {listed
            .filter(({ operation }) => operation.tags?.includes(tag.name))
            .map(({ method, path, operation }) => (
              <OperationView key={`${method} ${path}`} method={method} path={path} operation={operation} />
            ))}
        </section>
      ))}

      <section aria-labelledby="schemas">
        <h2 id="schemas">Schemas</h2>
        {Object.entries(schemas).map(([name, schema]) => (
          <section key={name} id={schemaAnchor(name)} className={`card ${styles.schema}`} aria-label={name}>
            <h3>{name}</h3>
            {schema.description ? (
              <p>
                <Prose text={schema.description} />
              </p>
            ) : null}
            <SchemaView schema={schema} />
          </section>
        ))}
      </section>
    </>
  )
}
