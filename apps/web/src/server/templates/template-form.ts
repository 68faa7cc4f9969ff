import type { AppError } from '@fairlane/core/errors'
import type { TemplateEditorState, TemplateEditorValues, TemplateField } from './editor-state'

const FIELDS: readonly TemplateField[] = ['slug', 'name', 'subject', 'html', 'text']

export function templateValuesOf(form: FormData): TemplateEditorValues {
  const value = (name: TemplateField) => String(form.get(name) ?? '')
  return {
    slug: value('slug').trim(),
    name: value('name'),
    subject: value('subject'),
    html: value('html'),
    text: value('text'),
  }
}

/** The form as the API's bodies: an empty name defaults to the slug, empty parts are absent. */
export function templateBodyOf(values: TemplateEditorValues, mode: 'create' | 'update') {
  const name = values.name.trim() === '' ? undefined : values.name
  const parts = { subject: values.subject, html: values.html, text: values.text }
  return mode === 'create' ? { slug: values.slug, name, ...parts } : { name, ...parts }
}

/** A use case's refusal, shown next to the fields it names (the rest as the form's error). */
export function templateStateFromError(values: TemplateEditorValues, error: AppError): TemplateEditorState {
  const errors: TemplateEditorState['errors'] = {}
  for (const detail of error.details ?? []) {
    const field = FIELDS.find((name) => name === detail.path)
    if (field) errors[field] ??= detail.message
  }
  const named = Object.keys(errors).length > 0
  return { values, errors, formError: named ? undefined : error.message }
}
