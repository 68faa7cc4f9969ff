'use client'

import { useActionState } from 'react'
import { FormField } from '@/components/form-field'
import { type SignUpState, signUpAction } from './actions'

const initial: SignUpState = { values: { company: '', name: '', email: '' }, errors: {} }

export function SignUpForm({ minPassword, maxPassword }: { minPassword: number; maxPassword: number }) {
  const [state, action, pending] = useActionState(signUpAction, initial)
  return (
    <form action={action} className="form" noValidate>
      {state.errors.form ? (
        <p className="form-error" role="alert">
          {state.errors.form}
        </p>
      ) : null}
      <FormField
        name="company"
        label="Company name"
        autoComplete="organization"
        required
        maxLength={100}
        defaultValue={state.values.company}
        error={state.errors.company}
      />
      <FormField
        name="name"
        label="Your name"
        autoComplete="name"
        required
        maxLength={100}
        defaultValue={state.values.name}
        error={state.errors.name}
      />
      <FormField
        name="email"
        label="Email"
        type="email"
        autoComplete="email"
        required
        defaultValue={state.values.email}
        error={state.errors.email}
      />
      <FormField
        name="password"
        label="Password"
        type="password"
        autoComplete="new-password"
        required
        minLength={minPassword}
        maxLength={maxPassword}
        hint={`${minPassword} to ${maxPassword} characters. A few unrelated words make a strong one.`}
        error={state.errors.password}
      />
      <div>
        <button type="submit" className="button" disabled={pending}>
          {pending ? 'Creating your account…' : 'Create account'}
        </button>
      </div>
    </form>
  )
}
