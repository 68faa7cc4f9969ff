import type { AppError } from '@fairlane/core/errors'
import type { TemplateEditorState, TemplateEditorValues, TemplateField } from './editor-state'

const FIELDS: readonly TemplateField[] = ['slug', 'name', 'subject', 'html', 'text', 'from', 'replyTo']

export function templateValuesOf(form: FormData): TemplateEditorValues {
  const value = (name: TemplateField) => String(form.get(name) ?? '')
  return {
    slug: value('slug').trim(),
    name: value('name'),
    subject: value('subject'),
    html: value('html'),
    text: value('text'),
    from: value('from'),
    replyTo: value('replyTo'),
  }
}

/**
 * The form as the API's bodies: an empty name defaults to the slug, empty parts are absent, an empty
 * From or Reply-To means the tenant's default (and clears one saved before).
 */
export function templateBodyOf(values: TemplateEditorValues, mode: 'create' | 'update') {
  const name = values.name.trim() === '' ? undefined : values.name
  const parts = {
    subject: values.subject,
    html: values.html,
    text: values.text,
    from: values.from,
    replyTo: values.replyTo,
  }
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
