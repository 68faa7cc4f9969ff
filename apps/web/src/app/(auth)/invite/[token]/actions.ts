'use server'

import { acceptInvitation } from '@fairlane/core'
import { switchActiveTenant } from '@fairlane/db/queries/team'
import { headers } from 'next/headers'
import { redirect } from 'next/navigation'
import type { FieldErrors } from '@/server/accounts/sign-up-tenant'
import { isAuthApiError } from '@/server/auth/auth-api-error'
import { container } from '@/server/container'
import { type JoinField, signUpByInvitation } from '@/server/team/join-by-invitation'
import { teamUseCaseDeps } from '@/server/team/team-deps'

/**
 * The invitation page's actions run before the user is a member of the tenant, so they ask no
 * permission: the link's token is the credential (checked by core's `acceptInvitation`), and the
 * user is the signed-in one (or the one signing in or up here).
 */

export interface JoinFormState {
  values: { name: string; email: string }
  errors: FieldErrors<JoinField> & { form?: string }
}

const invitePath = (token: string) => `/invite/${encodeURIComponent(token)}`

/** Accepted: act for the invitation's tenant from now on, and open it. */
async function openTenant(input: {
  userId: string
  tenantId: string
  session: { sessionId: string } | { sessionToken: string }
}): Promise<never> {
  await switchActiveTenant(container().database.db, {
    ...input.session,
    userId: input.userId,
    tenantId: input.tenantId,
  })
  redirect('/dashboard?notice=joined')
}

/** The signed-in user accepts; a refused link shows its page again with why. */
export async function acceptInvitationAction(form: FormData): Promise<void> {
  const token = String(form.get('token') ?? '')
  const { auth, api } = container()
  const found = await auth.api.getSession({ headers: await headers() })
  if (!found) redirect(invitePath(token))
  const outcome = await acceptInvitation(
    { token, userId: found.user.id, userEmail: found.user.email },
    teamUseCaseDeps(api),
  )
  if (outcome.kind === 'refused') redirect(invitePath(token))
  await openTenant({
    userId: found.user.id,
    tenantId: outcome.invitation.tenantId,
    session: { sessionId: found.session.id },
  })
}

/** "I have an account": sign in here, then accept (one step for the invitee). */
export async function signInAndAcceptAction(_state: JoinFormState, form: FormData): Promise<JoinFormState> {
  const token = String(form.get('token') ?? '')
  const email = String(form.get('email') ?? '').trim()
  const password = String(form.get('password') ?? '')
  const values = { name: '', email }
  if (!email || !password) {
    return {
      values,
      errors: {
        ...(email ? {} : { email: 'Enter your email address' }),
        ...(password ? {} : { password: 'Enter your password' }),
      },
    }
  }
  const { auth, api } = container()
  let signedIn: { token: string; user: { id: string; email: string } }
  try {
    signedIn = await auth.api.signInEmail({ body: { email, password }, headers: await headers() })
  } catch (error) {
    if (isAuthApiError(error) && error.statusCode === 429) {
      return {
        values,
        errors: { form: error.body?.message ?? 'Too many sign-in attempts. Try again later.' },
      }
    }
    if (isAuthApiError(error) && error.statusCode < 500) {
      return { values, errors: { password: 'Wrong email or password' } }
    }
    throw error
  }
  const outcome = await acceptInvitation(
    { token, userId: signedIn.user.id, userEmail: signedIn.user.email },
    teamUseCaseDeps(api),
  )
  if (outcome.kind === 'refused') return { values, errors: { form: outcome.message } }
  return openTenant({
    userId: signedIn.user.id,
    tenantId: outcome.invitation.tenantId,
    session: { sessionToken: signedIn.token },
  })
}

/** "Create an account": a new user who joins the invitation's tenant (and no tenant of their own). */
export async function signUpAndAcceptAction(_state: JoinFormState, form: FormData): Promise<JoinFormState> {
  const input = {
    token: String(form.get('token') ?? ''),
    name: String(form.get('name') ?? ''),
    email: String(form.get('email') ?? ''),
    password: String(form.get('password') ?? ''),
  }
  const values = { name: input.name, email: input.email }
  const { auth, database, api } = container()
  const outcome = await signUpByInvitation(input, {
    auth,
    db: database.db,
    team: teamUseCaseDeps(api),
    headers: await headers(),
  })
  if (outcome.kind === 'invalid') return { values, errors: outcome.errors }
  if (outcome.kind === 'throttled' || outcome.kind === 'refused')
    return { values, errors: { form: outcome.message } }
  // The new user's only membership is this tenant, so the session acts for it without a switch.
  redirect('/dashboard?notice=joined')
}
