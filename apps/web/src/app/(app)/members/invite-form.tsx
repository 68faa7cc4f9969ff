'use client'

import { useActionState } from 'react'
import { FormField } from '@/components/form-field'
import { type InviteFormState, inviteMemberAction } from './actions'

/** Email and role; the link is mailed, the notice or the refusal shown here. */
export function InviteForm({ roles }: { roles: readonly string[] }) {
  const [state, formAction, pending] = useActionState<InviteFormState, FormData>(inviteMemberAction, {
    values: { email: '', role: 'member' },
  })
  return (
    <form action={formAction} className="form" noValidate data-testid="invite-form">
      <FormField
        key={`email-${state.values.email}`}
        name="email"
        label="Email"
        type="email"
        defaultValue={state.values.email}
        error={state.errors?.email}
      />
      <div className="field">
        <label htmlFor="invite-role">Role</label>
        <select
          id="invite-role"
          name="role"
          key={`role-${state.values.role}`}
          defaultValue={state.values.role}
        >
          {roles.map((role) => (
            <option key={role} value={role}>
              {role}
            </option>
          ))}
        </select>
        {state.errors?.role ? <p className="field-error">{state.errors.role}</p> : null}
      </div>
      {state.errors?.form ? (
        <p className="field-error" role="alert">
          {state.errors.form}
        </p>
      ) : null}
      {state.notice ? (
        <p className="notice" role="status">
          {state.notice}
        </p>
      ) : null}
      <div>
        <button type="submit" className="button" disabled={pending}>
          Send invitation
        </button>
      </div>
    </form>
  )
}
