'use client'

import { useActionState } from 'react'
import { FormField } from '@/components/form-field'
import { type SignInState, signInAction } from './actions'

const initial: SignInState = { email: '', errors: {} }

export function SignInForm() {
  const [state, action, pending] = useActionState(signInAction, initial)
  return (
    <form action={action} className="form" noValidate>
      {state.errors.form ? (
        <p className="form-error" role="alert">
          {state.errors.form}
        </p>
      ) : null}
      <FormField
        name="email"
        label="Email"
        type="email"
        autoComplete="email"
        required
        defaultValue={state.email}
        error={state.errors.email}
      />
      <FormField
        name="password"
        label="Password"
        type="password"
        autoComplete="current-password"
        required
        error={state.errors.password}
      />
      <div>
        <button type="submit" className="button" disabled={pending}>
          {pending ? 'Signing in…' : 'Sign in'}
        </button>
      </div>
    </form>
  )
}
