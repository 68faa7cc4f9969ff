'use client'

import { useActionState } from 'react'
import { FormField } from '@/components/form-field'
import { useAnsweredForm } from '@/components/use-answered-form'
import { type AddSuppressionsState, addSuppressionsAction } from './actions'

const initial: AddSuppressionsState = { values: { emails: '', detail: '' } }

/** Addresses to stop mailing, typed by hand, with an optional note kept as their detail. */
export function AddSuppressionsForm({
  maxAddresses,
  maxDetail,
}: {
  maxAddresses: number
  maxDetail: number
}) {
  const [state, action, pending] = useActionState(addSuppressionsAction, initial)
  const { values, change, form } = useAnsweredForm(state)
  return (
    <form ref={form} action={action} className="form" noValidate>
      <div className="field">
        <label htmlFor="suppress-emails">Addresses</label>
        <span id="suppress-emails-hint" className="hint">
          One per line, or separated by commas. At most {maxAddresses.toLocaleString('en')} at a time; for
          more, import a CSV file.
        </span>
        <textarea
          id="suppress-emails"
          name="emails"
          rows={4}
          required
          spellCheck={false}
          value={values.emails}
          onChange={(event) => change({ emails: event.target.value })}
          aria-invalid={state.error ? true : undefined}
          aria-describedby={`suppress-emails-hint${state.error ? ' suppress-emails-error' : ''}`}
        />
        {state.error ? (
          <p id="suppress-emails-error" className="field-error" role="alert">
            {state.error}
          </p>
        ) : null}
      </div>
      <FormField
        id="suppress-detail"
        name="detail"
        label="Note (optional)"
        hint="Why, in your words: shown beside the addresses, for example “asked by phone not to be mailed”."
        maxLength={maxDetail}
        autoComplete="off"
        value={values.detail}
        onChange={(event) => change({ detail: event.target.value })}
        error={state.detailError}
      />
      <div>
        <button type="submit" className="button" disabled={pending}>
          {pending ? 'Adding…' : 'Suppress these addresses'}
        </button>
      </div>
    </form>
  )
}
