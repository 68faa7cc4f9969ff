/** A user's own settings, whichever tenant they act for. */
export interface UserProfile {
  name: string
  /** The IANA zone times are shown in (`Europe/Paris`); null: the browser's. */
  timeZone: string | null
}

/** What the profile use case needs from PostgreSQL (`@fairlane/db/queries/profile`). */
export interface ProfileStore {
  /** Writes the user's name and zone; false when there is no such user. */
  saveProfile(input: { userId: string } & UserProfile): Promise<boolean>
}
