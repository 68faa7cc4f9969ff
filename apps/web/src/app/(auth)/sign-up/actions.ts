'use server'

import { headers } from 'next/headers'
import { redirect } from 'next/navigation'
import { type FieldErrors, type SignUpField, signUpTenant } from '@/server/accounts/sign-up-tenant'
import { container } from '@/server/container'

export interface SignUpState {
  values: { company: string; name: string; email: string }
  errors: FieldErrors<SignUpField> & { form?: string }
}

export async function signUpAction(_previous: SignUpState, formData: FormData): Promise<SignUpState> {
  const input = {
    company: String(formData.get('company') ?? ''),
    name: String(formData.get('name') ?? ''),
    email: String(formData.get('email') ?? ''),
    password: String(formData.get('password') ?? ''),
  }
  const { auth, database, config } = container()
  const outcome = await signUpTenant(input, {
    auth,
    db: database.db,
    headers: await headers(),
    signupMode: config.SIGNUP_MODE,
  })
  if (outcome.kind === 'throttled') {
    return {
      values: { company: input.company, name: input.name, email: input.email },
      errors: { form: outcome.message },
    }
  }
  if (outcome.kind === 'invalid') {
    // The password is never echoed back into the page.
    return {
      values: { company: input.company, name: input.name, email: input.email },
      errors: outcome.errors,
    }
  }
  redirect('/dashboard')
}
