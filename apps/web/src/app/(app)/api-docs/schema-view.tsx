import { type DataColumn, DataTable } from '@/components/data-table'
import styles from './api-docs.module.css'
import { Prose } from './prose'
import { constraints, type JsonSchema, refName, typeLabel } from './schema-summary'

/** Where a named schema is shown on the page. */
export const schemaAnchor = (name: string) => `schema-${name}`

/** A schema's type: a link to a named schema, or its type in a few words. */
export function SchemaType({ schema }: { schema: JsonSchema }) {
  if (schema.$ref) return <a href={`#${schemaAnchor(refName(schema.$ref))}`}>{refName(schema.$ref)}</a>
  const variants = schema.oneOf ?? schema.anyOf
  if (variants?.every((variant) => variant.$ref)) {
    return (
      <>
        {variants.map((variant, index) => (
          <span key={variant.$ref}>
            {index > 0 ? ' | ' : null}
            <SchemaType schema={variant} />
          </span>
        ))}
      </>
    )
  }
  return <code>{typeLabel(schema)}</code>
}

/** What a nested object, list of objects or object alternative holds, shown under its field. */
function nestedObject(schema: JsonSchema): JsonSchema | null {
  if (schema.properties) return schema
  if (schema.type === 'array' && schema.items?.properties) return schema.items
  return (schema.oneOf ?? schema.anyOf)?.find((variant) => variant.properties) ?? null
}

/**
 * A schema as a table of its fields (type, required, what it means and its bounds), nested objects
 * indented under their field; anything else as its type and bounds. Rendered on the server: the page
 * needs no script to read.
 */
export function SchemaView({ schema, depth = 0 }: { schema: JsonSchema; depth?: number }) {
  const variants = schema.oneOf ?? schema.anyOf
  if (!schema.properties && variants && variants.some((variant) => variant.properties)) {
    return (
      <div>
        <p className="muted">One of:</p>
        {variants.map((variant, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: variants have no identity but their place
          <SchemaView key={index} schema={variant} depth={depth + 1} />
        ))}
      </div>
    )
  }
  if (!schema.properties) {
    const said = constraints(schema)
    return (
      <p>
        <SchemaType schema={schema} />
        {schema.description ? ' — ' : null}
        <Prose text={schema.description} />
        {said.length > 0 ? <span className="muted"> ({said.join(', ')})</span> : null}
      </p>
    )
  }
  const required = new Set(schema.required ?? [])
  const columns: DataColumn<[name: string, property: JsonSchema]>[] = [
    {
      header: 'Field',
      className: styles.nowrap,
      cell: ([name]) => (
        <>
          <code>{name}</code>
          {required.has(name) ? <span className="muted"> required</span> : null}
        </>
      ),
    },
    { header: 'Type', cell: ([, property]) => <SchemaType schema={property} /> },
    {
      header: 'Description',
      cell: ([, property]) => {
        const nested = depth < 3 ? nestedObject(property) : null
        const said = constraints(property)
        return (
          <>
            <Prose text={property.description} />
            {said.length > 0 ? <span className="muted"> ({said.join(', ')})</span> : null}
            {nested ? <SchemaView schema={nested} depth={depth + 1} /> : null}
          </>
        )
      },
    },
  ]
  return (
    <DataTable
      label="Fields"
      columns={columns}
      rows={Object.entries(schema.properties)}
      rowKey={([name]) => name}
    />
  )
}
