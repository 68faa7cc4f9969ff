import { z } from 'zod'
import { MEMBERSHIP_ROLES } from '../domain/statuses'
import { validationFailed } from '../errors/app-error'
import { fieldIssues } from '../errors/zod-issues'

const role = z.enum(MEMBERSHIP_ROLES, { error: `must be one of ${MEMBERSHIP_ROLES.join(', ')}` })

export const invitationRequestSchema = z.strictObject({
  email: z
    .string({ error: 'is required' })
    .trim()
    .max(254, { error: 'must be at most 254 characters' })
    .pipe(z.email({ error: 'must be an email address' }))
    .transform((email) => email.toLowerCase()),
  role: role.default('member'),
})

export const memberRolePatchSchema = z.strictObject({ role })

export type InvitationRequest = z.output<typeof invitationRequestSchema>

/** `{ email, role? }` (from the API's JSON or the invite form) or a 400 naming the field. */
export function parseInvitationRequest(body: unknown): InvitationRequest {
  const result = invitationRequestSchema.safeParse(body)
  if (!result.success) throw validationFailed(fieldIssues(result.error))
  return result.data
}

/** `{ role }` or a 400 naming `role`. */
export function parseMemberRolePatch(body: unknown): z.output<typeof memberRolePatchSchema> {
  const result = memberRolePatchSchema.safeParse(body)
  if (!result.success) throw validationFailed(fieldIssues(result.error))
  return result.data
}
