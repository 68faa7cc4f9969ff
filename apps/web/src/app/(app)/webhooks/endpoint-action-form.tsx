'use client'

import { useActionState } from 'react'
import { CopyButton } from '@/components/copy-button'
import type { EndpointActionState } from './actions'
import styles from './webhooks.module.css'

interface Props {
  endpointId: string
  action: (state: EndpointActionState, form: FormData) => Promise<EndpointActionState>
  label: string
  pendingLabel: string
  className?: string
  /** Extra fields the action reads (`enabled`). */
  fields?: Record<string, string>
  /** Asked in the browser first (deleting, rotating). */
  confirm?: string
}

/**
 * One button acting on an endpoint: success moves to a page with a notice, a refusal is said beside
 * it, and a rotation's new secret is shown here, once, with a copy button.
 */
export function EndpointActionForm(props: Props) {
  const [state, formAction, pending] = useActionState(props.action, {})
  return (
    <form
      action={formAction}
      className="form-inline"
      onSubmit={(event) => {
        if (props.confirm && !window.confirm(props.confirm)) event.preventDefault()
      }}
    >
      <input type="hidden" name="endpointId" value={props.endpointId} />
      {Object.entries(props.fields ?? {}).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button type="submit" className={props.className ?? 'button-secondary'} disabled={pending}>
        {pending ? props.pendingLabel : props.label}
      </button>
      {state.error ? (
        <p className="form-error" role="alert">
          {state.error}
        </p>
      ) : null}
      {state.secret ? (
        <div className="notice" role="status" aria-live="polite">
          <p>
            <strong>New signing secret.</strong> Copy it now: it is shown only this once. The old secret keeps
            signing requests too for 24 hours, so you can deploy the new one without rejecting anything.
          </p>
          <p>
            <code className={styles.secret} data-testid="rotated-webhook-secret">
              {state.secret}
            </code>{' '}
            <CopyButton text={state.secret} ariaLabel="Copy the new signing secret" />
          </p>
        </div>
      ) : null}
    </form>
  )
}
