'use client'

import { useActionState } from 'react'
import { CopyButton } from '@/components/copy-button'
import { FormField } from '@/components/form-field'
import { type CreateKeyState, createKeyAction } from './actions'
import { QuickStart } from './quick-start'

const initial: CreateKeyState = { name: '', scope: 'full', domain: '' }

/**
 * `baseUrl`: APP_URL, for the quick start's curl command; `domains`: the tenant's verified domains
 * (a key may be restricted to one); `refusal`: why this user may not create keys yet (unverified
 * email, tenant held), shown up front with the button disabled.
 */
export function CreateKeyForm({
  baseUrl,
  domains,
  refusal,
}: {
  baseUrl: string
  domains: readonly string[]
  refusal: string | null
}) {
  const [state, action, pending] = useActionState(createKeyAction, initial)
  const fieldError = (field: CreateKeyState['errorField']) =>
    state.errorField === field ? state.error : undefined
  return (
    <>
      {refusal ? (
        <p className="form-error" role="alert" data-testid="api-keys-refusal">
          {refusal}
        </p>
      ) : null}
      {state.created ? (
        <div className="notice" role="status" aria-live="polite">
          <p>
            <strong>Key “{state.created.name}” created</strong> (
            {state.created.scope === 'sending' ? 'sending only' : 'full access'}
            {state.created.domain ? `, from ${state.created.domain} only` : ''}). Copy it now: it is shown
            only this once, and Fairlane keeps only a hash of it.
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
          error={state.errorField === undefined ? state.error : fieldError('name')}
        />
        <div className="field">
          <label htmlFor="field-scope">Scope</label>
          <select
            id="field-scope"
            name="scope"
            defaultValue={state.scope}
            aria-invalid={fieldError('scope') ? true : undefined}
          >
            <option value="full">Full access: every API call</option>
            <option value="sending">Sending: send messages and read their status only</option>
          </select>
          {fieldError('scope') ? <p className="field-error">{fieldError('scope')}</p> : null}
        </div>
        <div className="field">
          <label htmlFor="field-domain">Domain</label>
          <select
            id="field-domain"
            name="domain"
            defaultValue={state.domain}
            aria-invalid={fieldError('domain') ? true : undefined}
          >
            <option value="">Any verified domain</option>
            {domains.map((domain) => (
              <option key={domain} value={domain}>
                Only {domain}
              </option>
            ))}
          </select>
          {fieldError('domain') ? <p className="field-error">{fieldError('domain')}</p> : null}
        </div>
        <div className="field">
          <button
            type="submit"
            className="button"
            disabled={pending || refusal !== null}
            title={refusal ?? undefined}
          >
            {pending ? 'Creating…' : 'Create key'}
          </button>
        </div>
      </form>
      <QuickStart baseUrl={baseUrl} apiKey={state.created?.key} />
    </>
  )
}
