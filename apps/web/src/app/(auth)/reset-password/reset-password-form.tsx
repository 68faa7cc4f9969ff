'use client'

import Link from 'next/link'
import { useActionState } from 'react'
import { FormField } from '@/components/form-field'
import { type ResetPasswordState, resetPasswordAction } from './actions'

const initial: ResetPasswordState = {}

export function ResetPasswordForm({ token, minLength }: { token: string; minLength: number }) {
  const [state, action, pending] = useActionState(resetPasswordAction, initial)
  if (state.invalidToken) return <InvalidResetLink />
  return (
    <form action={action} className="form" noValidate>
      <input type="hidden" name="token" value={token} />
      <FormField
        name="password"
        label="New password"
        type="password"
        autoComplete="new-password"
        required
        minLength={minLength}
        hint={`At least ${minLength} characters. Every other signed-in browser is signed out.`}
        error={state.error}
      />
      <div>
        <button type="submit" className="button" disabled={pending}>
          {pending ? 'Saving…' : 'Set new password'}
        </button>
      </div>
    </form>
  )
}

/** Expired, already used or not ours: one page for all three, since the way on is the same. */
export function InvalidResetLink() {
  return (
    <div className="form-error" role="alert" data-testid="invalid-reset-link">
      <p>
        This reset link has expired, was already used, or is not valid. Your password has not been changed.
      </p>
      <p>
        <Link href="/forgot-password">Ask for a new link</Link>
      </p>
    </div>
  )
}
