'use client'

import { useActionState } from 'react'
import { FormField } from '@/components/form-field'
import { useAnsweredForm } from '@/components/use-answered-form'
import { type AddDomainState, addDomainAction } from './actions'

const initial: AddDomainState = { values: { name: '' } }

/** The name of a domain to send from; a refusal (not registrable, already added) is said beside the field. */
export function AddDomainForm() {
  const [state, action, pending] = useActionState(addDomainAction, initial)
  const { values, change, form } = useAnsweredForm(state)
  return (
    <form ref={form} action={action} className="form-inline" noValidate>
      <FormField
        name="name"
        label="Domain name"
        hint="The domain your From addresses use, e.g. example.com or mail.example.com."
        required
        maxLength={253}
        placeholder="example.com"
        autoComplete="off"
        spellCheck={false}
        value={values.name}
        onChange={(event) => change({ name: event.target.value })}
        error={state.error}
      />
      <div className="field">
        <button type="submit" className="button" disabled={pending}>
          {pending ? 'Adding…' : 'Add domain'}
        </button>
      </div>
    </form>
  )
}
