'use client'

import { useActionState } from 'react'
import { FormField } from '@/components/form-field'
import type { ContactFormState } from '@/server/contacts/contact-form'

type Action = (state: ContactFormState, form: FormData) => Promise<ContactFormState>

/** Add and edit share one form; errors sit under their field and the typed values survive a refusal. */
export function ContactForm({
  action,
  initial,
  contactId,
  submitLabel,
}: {
  action: Action
  initial: ContactFormState
  contactId?: string
  submitLabel: string
}) {
  const [state, formAction, pending] = useActionState(action, initial)
  const attributesError = state.errors.attributes
  return (
    <form action={formAction} className="form" noValidate>
      {contactId ? <input type="hidden" name="contactId" value={contactId} /> : null}
      {state.errors.form ? (
        <p className="form-error" role="alert">
          {state.errors.form}
        </p>
      ) : null}
      <FormField
        name="email"
        label="Email"
        type="email"
        required
        maxLength={254}
        defaultValue={state.values.email}
        error={state.errors.email}
      />
      <FormField
        name="name"
        label="Name"
        maxLength={200}
        hint="Optional, at most 200 characters."
        defaultValue={state.values.name}
        error={state.errors.name}
      />
      <div className="field">
        <label htmlFor="field-attributes">Attributes</label>
        <span id="field-attributes-hint" className="hint">
          Optional. One per line as name: value, e.g. city: Berlin — usable in campaigns as {'{{city}}'}.
          Names start with a letter or _, then letters, digits or _.
        </span>
        <textarea
          id="field-attributes"
          name="attributes"
          rows={5}
          defaultValue={state.values.attributes}
          aria-invalid={attributesError ? true : undefined}
          aria-describedby={
            attributesError ? 'field-attributes-hint field-attributes-error' : 'field-attributes-hint'
          }
        />
        {attributesError ? (
          <p id="field-attributes-error" className="field-error">
            {attributesError}
          </p>
        ) : null}
      </div>
      <div>
        <button type="submit" className="button" disabled={pending}>
          {pending ? 'Saving…' : submitLabel}
        </button>
      </div>
    </form>
  )
}
