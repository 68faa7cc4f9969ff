'use client'

import { useActionState } from 'react'
import type { DomainActionState } from './actions'

interface Props {
  domainId: string
  action: (state: DomainActionState, form: FormData) => Promise<DomainActionState>
  label: string
  pendingLabel: string
  className?: string
}

/** One button acting on a domain; success moves to a page with a notice, a refusal is said beside it. */
export function DomainActionForm({ domainId, action, label, pendingLabel, className = 'button' }: Props) {
  const [state, formAction, pending] = useActionState(action, {})
  return (
    <form action={formAction} className="form-inline">
      <input type="hidden" name="domainId" value={domainId} />
      <button type="submit" className={className} disabled={pending}>
        {pending ? pendingLabel : label}
      </button>
      {state.error ? (
        <p className="form-error" role="alert">
          {state.error}
        </p>
      ) : null}
    </form>
  )
}
