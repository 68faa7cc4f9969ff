'use client'

import Link from 'next/link'
import { useActionState } from 'react'
import type { ResubscribeFormState } from '../actions'

type Action = (state: ResubscribeFormState, form: FormData) => Promise<ResubscribeFormState>

/**
 * Asks the tenant to confirm that the person asked (the box is required here and checked again on
 * the server) and how, for the audit log. A refusal keeps the typed note.
 */
export function ResubscribeForm({
  action,
  contactId,
  maxNoteLength,
}: {
  action: Action
  contactId: string
  maxNoteLength: number
}) {
  const [state, formAction, pending] = useActionState(action, { error: null, note: '' })
  return (
    <form action={formAction} className="form" aria-labelledby="resubscribe-heading">
      <input type="hidden" name="contactId" value={contactId} />
      <h3 id="resubscribe-heading">Resubscribe on their request</h3>
      <p>
        Only do this when the person asked you to send them campaigns again. It is recorded in the audit log
        below with your name.
      </p>
      {state.error ? (
        <p className="form-error" role="alert">
          {state.error}
        </p>
      ) : null}
      <label>
        <input type="checkbox" name="confirmed" value="yes" required /> The person asked me to send them
        campaigns again
      </label>
      <div className="field">
        <label htmlFor="field-note">How did they ask?</label>
        <span id="field-note-hint" className="hint">
          Optional, kept in the audit log (for example "email to support on 3 December").
        </span>
        <textarea
          id="field-note"
          name="note"
          rows={2}
          maxLength={maxNoteLength}
          defaultValue={state.note}
          aria-describedby="field-note-hint"
        />
      </div>
      <div className="form-inline">
        <button type="submit" className="button" disabled={pending}>
          Resubscribe
        </button>
        <Link href={`/contacts/${contactId}`}>Cancel</Link>
      </div>
    </form>
  )
}
