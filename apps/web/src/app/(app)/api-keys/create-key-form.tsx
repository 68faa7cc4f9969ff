'use client'

import { useActionState } from 'react'
import { CopyButton } from '@/components/copy-button'
import { FormField } from '@/components/form-field'
import { type CreateKeyState, createKeyAction } from './actions'
import { QuickStart } from './quick-start'

const initial: CreateKeyState = { name: '' }

/** `baseUrl`: APP_URL, for the quick start's curl command. */
export function CreateKeyForm({ baseUrl }: { baseUrl: string }) {
  const [state, action, pending] = useActionState(createKeyAction, initial)
  return (
    <>
      {state.created ? (
        <div className="notice" role="status" aria-live="polite">
          <p>
            <strong>Key “{state.created.name}” created.</strong> Copy it now: it is shown only this once, and
            Fairlane keeps only a hash of it.
          </p>
          <p>
            <code data-testid="new-api-key">{state.created.key}</code>{' '}
            <CopyButton text={state.created.key} failedHint="Select the key and copy it" />
          </p>
        </div>
      ) : null}
      <form action={action} className="form-inline" noValidate>
        <FormField
          name="name"
          label="Key name"
          required
          maxLength={80}
          placeholder="Production server"
          defaultValue={state.name}
          error={state.error}
        />
        <div className="field">
          <button type="submit" className="button" disabled={pending}>
            {pending ? 'Creating…' : 'Create key'}
          </button>
        </div>
      </form>
      <QuickStart baseUrl={baseUrl} apiKey={state.created?.key} />
    </>
  )
}
