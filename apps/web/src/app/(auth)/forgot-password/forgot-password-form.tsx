'use client'

import { useActionState } from 'react'
import { FormField } from '@/components/form-field'
import { type ForgotPasswordState, forgotPasswordAction } from './actions'

const initial: ForgotPasswordState = { email: '' }

export function ForgotPasswordForm() {
  const [state, action, pending] = useActionState(forgotPasswordAction, initial)
  return (
    <form action={action} className="form" noValidate>
      {state.sentTo ? (
        <p className="notice" role="status">
          If an account uses {state.sentTo}, we sent it a link to choose a new password. The link works once,
          for one hour.
        </p>
      ) : null}
      <FormField
        name="email"
        label="Email"
        type="email"
        autoComplete="email"
        required
        defaultValue={state.email}
        error={state.error}
      />
      <div>
        <button type="submit" className="button" disabled={pending}>
          {pending ? 'Sending…' : 'Send reset link'}
        </button>
      </div>
    </form>
  )
}
