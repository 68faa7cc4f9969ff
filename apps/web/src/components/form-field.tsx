import type { InputHTMLAttributes } from 'react'

interface FormFieldProps extends InputHTMLAttributes<HTMLInputElement> {
  name: string
  label: string
  /** Shown under the label and tied to the input with aria-describedby. */
  hint?: string | undefined
  /** Shown next to the field; marks the input invalid for assistive technology. */
  error?: string | undefined
}

/** A labelled input with its hint and error wired for screen readers; usable from server and client components. */
export function FormField({ name, label, hint, error, id, ...input }: FormFieldProps) {
  const inputId = id ?? `field-${name}`
  const hintId = hint ? `${inputId}-hint` : undefined
  const errorId = error ? `${inputId}-error` : undefined
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined
  return (
    <div className="field">
      <label htmlFor={inputId}>{label}</label>
      {hint ? (
        <span id={hintId} className="hint">
          {hint}
        </span>
      ) : null}
      <input
        id={inputId}
        name={name}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        {...input}
      />
      {error ? (
        <p id={errorId} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  )
}
