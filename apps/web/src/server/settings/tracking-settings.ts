import type { TrackingSettings } from '@fairlane/db/queries/tracking-settings'

/** A checkbox is in the form data only when ticked. */
export function trackingSettingsOf(form: FormData): TrackingSettings {
  return {
    trackOpens: form.get('trackOpens') === 'on',
    trackClicks: form.get('trackClicks') === 'on',
    trackingDisabled: form.get('trackingDisabled') === 'on',
  }
}

export interface TrackingFormState {
  values: TrackingSettings
  saved: boolean
}
