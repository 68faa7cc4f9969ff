'use client'

import { useActionState, useId } from 'react'

export interface FieldFormState {
  value: string
  error?: string
  notice?: string
}

type Action = (state: FieldFormState, form: FormData) => Promise<FieldFormState>

/**
 * A form of one labelled field (a list name, a set of emails) with its error beside it and a notice
 * after success; works without JavaScript through the server action's form post.
 */
export function SingleFieldForm({
  action,
  name,
  label,
  hint,
  submitLabel,
  hidden = {},
  initialValue = '',
  multiline = false,
  maxLength,
}: {
  action: Action
  name: string
  label: string
  hint?: string
  submitLabel: string
  hidden?: Record<string, string>
  initialValue?: string
  multiline?: boolean
  maxLength?: number
}) {
  const [state, formAction, pending] = useActionState(action, { value: initialValue })
  const id = useId()
  const describedBy = [hint ? `${id}-hint` : '', state.error ? `${id}-error` : ''].filter(Boolean).join(' ')
  const common = {
    id,
    name,
    defaultValue: state.value,
    maxLength,
    'aria-invalid': state.error ? true : undefined,
    'aria-describedby': describedBy || undefined,
  }
  return (
    <form action={formAction} className="form" noValidate>
      {Object.entries(hidden).map(([key, value]) => (
        <input key={key} type="hidden" name={key} value={value} />
      ))}
      <div className="field">
        <label htmlFor={id}>{label}</label>
        {hint ? (
          <span id={`${id}-hint`} className="hint">
            {hint}
          </span>
        ) : null}
        {/* key: a refused value stays, an accepted one clears (defaultValue only applies on mount). */}
        {multiline ? (
          <textarea key={state.value} rows={4} {...common} />
        ) : (
          <input key={state.value} {...common} />
        )}
        {state.error ? (
          <p id={`${id}-error`} className="field-error">
            {state.error}
          </p>
        ) : null}
      </div>
      {state.notice ? (
        <p className="notice" role="status">
          {state.notice}
        </p>
      ) : null}
      <div>
        <button type="submit" className="button" disabled={pending}>
          {submitLabel}
        </button>
      </div>
    </form>
  )
}
