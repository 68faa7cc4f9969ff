import { isValidTimeZone } from '../campaigns/schedule'
import type { ProfileStore, UserProfile } from './ports'

/** Same bound as the sign-up form's name. */
export const PROFILE_NAME_MAX = 100

export type ProfileField = keyof UserProfile

export type UpdateProfileOutcome =
  | { kind: 'saved'; profile: UserProfile }
  | { kind: 'invalid'; errors: Partial<Record<ProfileField, string>> }
  | { kind: 'not-found' }

/**
 * Saves a user's name and time zone. The zone is an IANA name the runtime knows (offsets such as
 * `UTC+7` refused, as for a campaign's zone), or empty for "the browser's": the reader's zone is then
 * whatever their browser reports, so it follows a laptop across the world.
 */
export async function updateProfile(
  input: { userId: string; name: string; timeZone: string },
  deps: { store: ProfileStore },
): Promise<UpdateProfileOutcome> {
  const errors: Partial<Record<ProfileField, string>> = {}
  const name = input.name.trim()
  if (name.length === 0) errors.name = 'Enter your name'
  else if (name.length > PROFILE_NAME_MAX) errors.name = `Use at most ${PROFILE_NAME_MAX} characters`
  const zone = input.timeZone.trim()
  if (zone !== '' && !isValidTimeZone(zone))
    errors.timeZone = `“${zone}” is not a time zone name such as Europe/Paris`
  if (errors.name || errors.timeZone) return { kind: 'invalid', errors }

  const profile: UserProfile = { name, timeZone: zone === '' ? null : zone }
  const saved = await deps.store.saveProfile({ userId: input.userId, ...profile })
  return saved ? { kind: 'saved', profile } : { kind: 'not-found' }
}
