import { type AcceptOutcome, acceptInvitation, findInvitation, type TeamDeps } from '@fairlane/core'
import type { Database } from '@fairlane/db'
import { deleteUser } from '@fairlane/db/queries/accounts'
import { markEmailVerified } from '@fairlane/db/queries/team'
import { type FieldErrors, refusal, signUpSchema, throttledBy } from '../accounts/sign-up-tenant'
import type { Auth } from '../auth/better-auth'

const accountSchema = signUpSchema.omit({ company: true })

export type JoinField = 'name' | 'email' | 'password'

export type JoinOutcome =
  | AcceptOutcome
  | { kind: 'invalid'; errors: FieldErrors<JoinField> }
  | { kind: 'throttled'; message: string }

export interface JoinDeps {
  auth: Auth
  db: Database
  team: TeamDeps
  headers?: Headers
}

/**
 * A new account made from an invitation link: no tenant of its own, the invitation's tenant instead.
 * The link is checked before the account is made, and if it is spent meanwhile the account goes
 * again, so a refused link changes nothing. An address equal to the invitation's is verified: the
 * link was mailed there.
 */
export async function signUpByInvitation(
  input: { token: string; name: string; email: string; password: string },
  deps: JoinDeps,
): Promise<JoinOutcome> {
  const found = await findInvitation(input.token, deps.team)
  if (found.kind === 'refused') return found
  const parsed = accountSchema.safeParse(input)
  if (!parsed.success) {
    const errors: FieldErrors<JoinField> = {}
    for (const issue of parsed.error.issues) errors[issue.path[0] as JoinField] ??= issue.message
    return { kind: 'invalid', errors }
  }
  const { name, email, password } = parsed.data
  let userId: string
  try {
    const created = await deps.auth.api.signUpEmail({
      body: { name, email, password },
      ...(deps.headers ? { headers: deps.headers } : {}),
    })
    userId = created.user.id
  } catch (error) {
    const throttled = throttledBy(error)
    if (throttled?.kind === 'throttled') return { kind: 'throttled', message: throttled.message }
    const refused = refusal(error)
    if (refused) return { kind: 'invalid', errors: refused }
    throw error
  }
  const outcome = await acceptInvitation({ token: input.token, userId, userEmail: email }, deps.team).catch(
    async (error: unknown) => {
      await deleteUser(deps.db, { userId })
      throw error
    },
  )
  if (outcome.kind === 'refused') {
    await deleteUser(deps.db, { userId })
    return outcome
  }
  if (email === found.invitation.email) await markEmailVerified(deps.db, { userId })
  return outcome
}
