export type { ProfileStore, UserProfile } from './ports'
export {
  PROFILE_NAME_MAX,
  type ProfileField,
  type UpdateProfileOutcome,
  updateProfile,
} from './update-profile'
