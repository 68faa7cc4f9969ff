'use client'

import type { TrackingSettings } from '@fairlane/db/queries/tracking-settings'
import { useActionState } from 'react'
import type { TrackingFormState } from '@/server/settings/tracking-settings'
import { saveTrackingSettingsAction } from './actions'

/** New campaigns' tracking defaults, and the tenant-wide "no tracking" switch that overrides them all. */
export function TrackingForm({ initial }: { initial: TrackingSettings }) {
  const [state, action, pending] = useActionState(saveTrackingSettingsAction, {
    values: initial,
    saved: false,
  } as TrackingFormState)
  return (
    <form action={action}>
      {state.saved ? (
        <p className="notice" role="status" data-testid="tracking-saved">
          Saved.
          {state.values.trackingDisabled ? ' Nothing you send is tracked now.' : ''}
        </p>
      ) : null}
      <div key={JSON.stringify(state.values)}>
        <div className="field">
          <label>
            <input type="checkbox" name="trackOpens" defaultChecked={state.values.trackOpens} /> Track opens
            of new campaigns
          </label>
          <label>
            <input type="checkbox" name="trackClicks" defaultChecked={state.values.trackClicks} /> Track
            clicks of new campaigns
          </label>
        </div>
        <div className="field">
          <label>
            <input type="checkbox" name="trackingDisabled" defaultChecked={state.values.trackingDisabled} />{' '}
            No tracking (privacy): never track opens or clicks, whatever a campaign or API message asks
          </label>
        </div>
      </div>
      <div className="field">
        <button type="submit" className="button" disabled={pending}>
          {pending ? 'Saving…' : 'Save tracking'}
        </button>
      </div>
    </form>
  )
}
