/** A JSON Schema (OpenAPI 3.1 dialect) as the reference page reads it; only the keywords it shows. */
export interface JsonSchema {
  $ref?: string
  type?: string | string[]
  const?: unknown
  enum?: unknown[]
  format?: string
  pattern?: string
  description?: string
  default?: unknown
  example?: unknown
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean | JsonSchema
  items?: JsonSchema
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  minItems?: number
  maxItems?: number
}

/** `#/components/schemas/Message` → `Message`. */
export function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1)
}

/** The schema's type in a few words: `string (uuid)`, `"queued"`, `array of Contact`, `object`. */
export function typeLabel(schema: JsonSchema): string {
  if (schema.$ref) return refName(schema.$ref)
  if (schema.const !== undefined) return JSON.stringify(schema.const)
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' | ')
  const variants = schema.oneOf ?? schema.anyOf
  if (variants) return variants.map(typeLabel).join(' | ')
  if (schema.type === 'array') return `array of ${schema.items ? typeLabel(schema.items) : 'anything'}`
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type ?? 'any')
  return schema.format ? `${type} (${schema.format})` : type
}

/** Bounds that matter to a caller, in words. JavaScript's safe-integer range is no news to anyone. */
export function constraints(schema: JsonSchema): string[] {
  const said: string[] = []
  const safe = Number.MAX_SAFE_INTEGER
  if (schema.minLength === 1) said.push('not empty')
  else if (schema.minLength !== undefined && schema.minLength > 1)
    said.push(`at least ${schema.minLength} characters`)
  if (schema.maxLength !== undefined) said.push(`at most ${schema.maxLength} characters`)
  if (schema.minimum !== undefined && Math.abs(schema.minimum) < safe) said.push(`≥ ${schema.minimum}`)
  if (schema.maximum !== undefined && Math.abs(schema.maximum) < safe) said.push(`≤ ${schema.maximum}`)
  if (schema.minItems !== undefined && schema.minItems > 0) said.push(`at least ${schema.minItems} items`)
  if (schema.maxItems !== undefined) said.push(`at most ${schema.maxItems.toLocaleString('en')} items`)
  // A format already says what its long generated pattern checks.
  if (schema.pattern !== undefined && schema.format === undefined) said.push(`matches ${schema.pattern}`)
  if (schema.default !== undefined) said.push(`default ${JSON.stringify(schema.default)}`)
  if (schema.additionalProperties === false && schema.properties) said.push('no other fields')
  return said
}
