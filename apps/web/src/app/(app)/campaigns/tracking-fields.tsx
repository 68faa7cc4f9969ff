'use client'

import type { EditorValues } from '@/server/campaigns/editor-state'

interface Props {
  values: EditorValues
  onChange(patch: Partial<EditorValues>): void
}

/** The campaign's open and click tracking switches (the tenant's "no tracking" setting overrides both). */
export function TrackingFields({ values, onChange }: Props) {
  return (
    <fieldset className="field">
      <legend>Tracking</legend>
      <label>
        <input
          type="checkbox"
          name="trackOpens"
          checked={values.trackOpens}
          onChange={(event) => onChange({ trackOpens: event.target.checked })}
        />{' '}
        Track opens (a 1×1 image)
      </label>{' '}
      <label>
        <input
          type="checkbox"
          name="trackClicks"
          checked={values.trackClicks}
          onChange={(event) => onChange({ trackClicks: event.target.checked })}
        />{' '}
        Track clicks (links go through this platform; the unsubscribe link never does)
      </label>
    </fieldset>
  )
}
