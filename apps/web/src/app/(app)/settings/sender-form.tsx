'use client'

import { useActionState } from 'react'
import { FormField } from '@/components/form-field'
import type { SenderFormState, SenderFormValues } from '@/server/settings/default-sender'
import { saveDefaultSenderAction } from './actions'

interface Props {
  initial: SenderFormValues
  fromHint: string
}

/** The default sender: From and Reply-To of every message, campaign and template that names none. */
export function SenderForm({ initial, fromHint }: Props) {
  const [state, action, pending] = useActionState(saveDefaultSenderAction, {
    values: initial,
    errors: {},
  } as SenderFormState)
  return (
    <form action={action} noValidate>
      {state.formError ? (
        <p className="form-error" role="alert">
          {state.formError}
        </p>
      ) : null}
      {state.saved ? (
        <p className="notice" role="status" data-testid="default-sender-saved">
          {state.saved.from
            ? `Saved. Mail that names no sender now goes from ${state.saved.from}.`
            : 'Saved. Mail that names no sender goes from the platform’s address with your name.'}
        </p>
      ) : null}
      {/* Keyed by the answer, so a save shows the stored (normalised) values and a refusal keeps the input. */}
      <div key={JSON.stringify(state.values)}>
        <FormField
          name="from"
          label="Default sender"
          hint={`${fromHint} Leave empty to send from the platform’s address.`}
          placeholder='"Acme News" <news@example.com>'
          defaultValue={state.values.from}
          error={state.errors.from}
          autoComplete="off"
        />
        <FormField
          name="replyTo"
          label="Default Reply-To"
          hint="Where replies go, any address; leave empty for none."
          placeholder="support@example.com"
          defaultValue={state.values.replyTo}
          error={state.errors.replyTo}
          autoComplete="off"
        />
      </div>
      <div className="field">
        <button type="submit" className="button" disabled={pending}>
          {pending ? 'Saving…' : 'Save sender'}
        </button>
      </div>
    </form>
  )
}
