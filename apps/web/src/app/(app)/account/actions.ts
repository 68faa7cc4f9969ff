'use server'

import { updateProfile } from '@fairlane/core'
import { profileStore } from '@fairlane/db/queries/profile'
import { revalidatePath } from 'next/cache'
import { authorize } from '@/server/auth/session'
import { container } from '@/server/container'
import { type ProfileFormState, profileFormValuesOf } from '@/server/profile/profile-form'

/** Saves the signed-in user's name and time zone (core's updateProfile validates both). */
export async function saveProfileAction(_state: ProfileFormState, form: FormData): Promise<ProfileFormState> {
  const { session } = await authorize('profile.manage')
  const values = profileFormValuesOf(form)
  const outcome = await updateProfile(
    { userId: session.userId, ...values },
    { store: profileStore(container().database.db) },
  )
  if (outcome.kind === 'invalid') return { values, errors: outcome.errors }
  if (outcome.kind === 'not-found') return { values, errors: {}, formError: 'Your account no longer exists.' }
  // The header shows the name and every page's times the zone.
  revalidatePath('/', 'layout')
  return {
    values: { name: outcome.profile.name, timeZone: outcome.profile.timeZone ?? '' },
    errors: {},
    saved: true,
  }
}
