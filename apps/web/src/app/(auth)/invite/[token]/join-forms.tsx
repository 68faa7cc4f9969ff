'use client'

import { useActionState } from 'react'
import { FormField } from '@/components/form-field'
import { type JoinFormState, signInAndAcceptAction, signUpAndAcceptAction } from './actions'

/** For a visitor not signed in: sign in with an existing account, or create one, and accept. */
export function JoinForms({ token, email }: { token: string; email: string }) {
  const initial: JoinFormState = { values: { name: '', email }, errors: {} }
  const [signIn, signInAction, signingIn] = useActionState(signInAndAcceptAction, initial)
  const [signUp, signUpAction, signingUp] = useActionState(signUpAndAcceptAction, initial)
  return (
    <>
      <h2>New to Fairlane? Create an account</h2>
      <form action={signUpAction} className="form" noValidate data-testid="join-sign-up">
        <input type="hidden" name="token" value={token} />
        <FormField
          name="name"
          id="join-name"
          label="Your name"
          defaultValue={signUp.values.name}
          error={signUp.errors.name}
          autoComplete="name"
        />
        <FormField
          name="email"
          id="join-email"
          label="Email"
          type="email"
          defaultValue={signUp.values.email}
          error={signUp.errors.email}
          autoComplete="email"
        />
        <FormField
          name="password"
          id="join-password"
          label="Password"
          type="password"
          error={signUp.errors.password}
          autoComplete="new-password"
        />
        {signUp.errors.form ? (
          <p className="field-error" role="alert">
            {signUp.errors.form}
          </p>
        ) : null}
        <button type="submit" className="button" disabled={signingUp}>
          Create account and join
        </button>
      </form>
      <h2>Already have an account? Sign in</h2>
      <form action={signInAction} className="form" noValidate data-testid="join-sign-in">
        <input type="hidden" name="token" value={token} />
        <FormField
          name="email"
          id="signin-email"
          label="Email"
          type="email"
          defaultValue={signIn.values.email}
          error={signIn.errors.email}
          autoComplete="email"
        />
        <FormField
          name="password"
          id="signin-password"
          label="Password"
          type="password"
          error={signIn.errors.password}
          autoComplete="current-password"
        />
        {signIn.errors.form ? (
          <p className="field-error" role="alert">
            {signIn.errors.form}
          </p>
        ) : null}
        <button type="submit" className="button" disabled={signingIn}>
          Sign in and join
        </button>
      </form>
    </>
  )
}
