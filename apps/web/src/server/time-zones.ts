import { isValidTimeZone } from '@fairlane/core'
import { currentZoneName } from './campaigns/editor-state'

/**
 * Every IANA zone the runtime knows, by current names, plus UTC (which `supportedValuesOf` leaves
 * out): what the campaign editor's and the profile's zone selects offer.
 */
export function selectableTimeZones(): string[] {
  const zones = new Set(
    Intl.supportedValuesOf('timeZone')
      .map(currentZoneName)
      .filter((zone) => isValidTimeZone(zone)),
  )
  zones.add('UTC')
  return [...zones].sort()
}
