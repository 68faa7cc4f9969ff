'use client'

import { useActionState } from 'react'
import { type ResendVerificationState, resendVerificationAction } from '@/app/(auth)/verify-email/actions'

const initial: ResendVerificationState = {}

/** "Send a new link" for the signed-in user's unverified address; says where it went. */
export function ResendVerification({ label = 'Send a new verification link' }: { label?: string }) {
  const [state, action, pending] = useActionState(resendVerificationAction, initial)
  return (
    <form action={action} className="inline-form">
      <button type="submit" className="button-secondary" disabled={pending}>
        {pending ? 'Sending…' : label}
      </button>
      {state.sentTo ? <span role="status"> Sent to {state.sentTo}. The link works for 24 hours.</span> : null}
      {state.error ? <span role="alert"> {state.error}</span> : null}
    </form>
  )
}
