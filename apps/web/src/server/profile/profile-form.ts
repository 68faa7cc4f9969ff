import type { ProfileField } from '@fairlane/core'

/** What the /account form holds: the zone is '' for "the browser's". Shared by client and server. */
export interface ProfileFormValues {
  name: string
  timeZone: string
}

export interface ProfileFormState {
  values: ProfileFormValues
  errors: Partial<Record<ProfileField, string>>
  formError?: string
  saved?: boolean
}

export function profileFormValuesOf(form: FormData): ProfileFormValues {
  const text = (key: string) => {
    const value = form.get(key)
    return typeof value === 'string' ? value : ''
  }
  return { name: text('name'), timeZone: text('timeZone') }
}
