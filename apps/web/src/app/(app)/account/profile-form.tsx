'use client'

import { useActionState, useEffect, useState } from 'react'
import { FormField } from '@/components/form-field'
import type { ProfileFormState, ProfileFormValues } from '@/server/profile/profile-form'
import { saveProfileAction } from './actions'

/** Name and time zone; the zone's first choice, '', follows whatever zone the browser is in. */
export function ProfileForm({ initial, zones }: { initial: ProfileFormValues; zones: string[] }) {
  const [state, action, pending] = useActionState(saveProfileAction, {
    values: initial,
    errors: {},
  } as ProfileFormState)
  // Known only in the browser, so set after mount (the server's HTML never names it).
  const [browserZone, setBrowserZone] = useState<string | null>(null)
  useEffect(() => setBrowserZone(Intl.DateTimeFormat().resolvedOptions().timeZone || null), [])
  const zoneError = state.errors.timeZone
  return (
    <form action={action} noValidate>
      {state.formError ? (
        <p className="form-error" role="alert">
          {state.formError}
        </p>
      ) : null}
      {state.saved ? (
        <p className="notice" role="status" data-testid="profile-saved">
          Saved.{' '}
          {state.values.timeZone
            ? `Times are shown in ${state.values.timeZone}.`
            : 'Times are shown in your browser’s time zone.'}
        </p>
      ) : null}
      {/* Keyed by the answer, so a save shows the stored (trimmed) values and a refusal keeps the input. */}
      <div key={JSON.stringify(state.values)}>
        <FormField
          name="name"
          label="Name"
          defaultValue={state.values.name}
          error={state.errors.name}
          autoComplete="name"
          maxLength={100}
        />
        <div className="field">
          <label htmlFor="field-timeZone">Time zone</label>
          <span id="field-timeZone-hint" className="hint">
            {browserZone
              ? `Your browser is in ${browserZone}.`
              : 'Your browser’s zone is used unless you pick one.'}
          </span>
          <select
            id="field-timeZone"
            name="timeZone"
            defaultValue={state.values.timeZone}
            aria-invalid={zoneError ? true : undefined}
            aria-describedby={zoneError ? 'field-timeZone-hint field-timeZone-error' : 'field-timeZone-hint'}
          >
            <option value="">Use my browser’s zone</option>
            {state.values.timeZone !== '' && !zones.includes(state.values.timeZone) ? (
              <option value={state.values.timeZone}>{state.values.timeZone}</option>
            ) : null}
            {zones.map((zone) => (
              <option key={zone} value={zone}>
                {zone}
              </option>
            ))}
          </select>
          {zoneError ? (
            <p id="field-timeZone-error" className="field-error">
              {zoneError}
            </p>
          ) : null}
        </div>
      </div>
      <div className="field">
        <button type="submit" className="button" disabled={pending}>
          {pending ? 'Saving…' : 'Save profile'}
        </button>
      </div>
    </form>
  )
}
