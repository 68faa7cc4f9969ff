import { Validator } from '@seriousme/openapi-schema-validator'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import type { OpenApiDocument } from '../api/v1/openapi/document'

type Json = Record<string, unknown>

export interface CheckedDocument {
  /** The seriousme validator's verdict on the document against the OpenAPI 3.1 schema. */
  valid: boolean
  errors: unknown
  /** The document with every `$ref` resolved, for reading operations without following references. */
  resolved: Json
  /** Whether `value` fits `schema` (a schema of `resolved`) under JSON Schema 2020-12, OpenAPI 3.1's dialect. */
  fits(schema: unknown, value: unknown): { ok: boolean; errors: string }
}

/** Validates the document as OpenAPI 3.1 and gives a checker for values against its schemas. */
export async function checkOpenApiDocument(document: OpenApiDocument): Promise<CheckedDocument> {
  const validator = new Validator()
  // A deep copy: the validator resolves references in place.
  const result = await validator.validate(JSON.parse(JSON.stringify(document)) as Json)
  const resolved = result.valid ? validator.resolveRefs() : {}
  // OpenAPI's `example` keyword is not JSON Schema's; strict mode would refuse it.
  const ajv = new Ajv2020({ allErrors: true, strict: false })
  addFormats(ajv)
  return {
    valid: result.valid,
    errors: result.errors,
    resolved,
    fits(schema, value) {
      const validate = ajv.compile(schema as Json)
      const ok = validate(value)
      return { ok, errors: ajv.errorsText(validate.errors) }
    },
  }
}
