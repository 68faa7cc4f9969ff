import { type ContactFields, validateContact } from '@fairlane/core'

/** What the add/edit form shows again after a refusal: the typed values and an error per field. */
export interface ContactFormState {
  values: { email: string; name: string; attributes: string }
  errors: { email?: string; name?: string; attributes?: string; form?: string }
}

export type ParsedContactForm = { ok: true; contact: ContactFields } | { ok: false; state: ContactFormState }

/**
 * Attributes are typed one per line as `key: value` — easier in a form than JSON. Values are kept as
 * text; templates print them as text anyway.
 */
export function parseContactForm(form: FormData): ParsedContactForm {
  const values = {
    email: String(form.get('email') ?? ''),
    name: String(form.get('name') ?? ''),
    attributes: String(form.get('attributes') ?? ''),
  }
  const errors: ContactFormState['errors'] = {}
  const attributes: Record<string, string> = {}
  for (const [index, raw] of values.attributes.split(/\r?\n/).entries()) {
    const line = raw.trim()
    if (line === '') continue
    const colon = line.indexOf(':')
    if (colon <= 0) {
      errors.attributes = `Line ${index + 1}: write it as name: value (for example plan: pro)`
      break
    }
    const key = line.slice(0, colon).trim()
    if (key in attributes) {
      errors.attributes = `Line ${index + 1}: ${key} is given twice`
      break
    }
    attributes[key] = line.slice(colon + 1).trim()
  }
  const result = validateContact({ email: values.email, name: values.name, attributes })
  if (!result.ok) {
    for (const issue of result.issues) {
      const field = issue.path.split('.')[0] as 'email' | 'name' | 'attributes'
      const detail = field === 'attributes' && issue.path !== 'attributes' ? `${issue.path.slice(11)} ` : ''
      errors[field] ??= `${detail}${issue.message}`
    }
  }
  if (Object.keys(errors).length > 0 || !result.ok) return { ok: false, state: { values, errors } }
  return { ok: true, contact: result.contact }
}

/** A stored contact's attributes as the textarea shows them. */
export function attributesText(attributes: Record<string, unknown>): string {
  return Object.entries(attributes)
    .map(([key, value]) => `${key}: ${String(value)}`)
    .join('\n')
}
