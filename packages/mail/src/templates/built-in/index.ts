import { type BuiltInTemplateName, isBuiltInTemplate, type RenderOutcome } from '@fairlane/core/accept'
import { fieldIssues } from '@fairlane/core/errors'
import type { z } from 'zod'
import { otpVariables, renderOtp } from './otp'
import { passwordResetVariables, renderPasswordReset } from './password-reset'
import { appName as appNameSchema } from './shared-variables'
import type { BuiltInContent } from './types'
import { renderVerifyEmail, verifyEmailVariables } from './verify-email'

interface BuiltInTemplate<Schema extends z.ZodType> {
  variables: Schema
  render(variables: z.output<Schema>): BuiltInContent
}

function define<Schema extends z.ZodType>(template: BuiltInTemplate<Schema>): BuiltInTemplate<z.ZodType> {
  return template as unknown as BuiltInTemplate<z.ZodType>
}

/** Keyed by core's list of built-in names, so adding a name there without a template does not compile. */
export const BUILT_IN_RENDERERS: Record<BuiltInTemplateName, BuiltInTemplate<z.ZodType>> = {
  otp: define({ variables: otpVariables, render: renderOtp }),
  'password-reset': define({ variables: passwordResetVariables, render: renderPasswordReset }),
  'verify-email': define({ variables: verifyEmailVariables, render: renderVerifyEmail }),
}

/**
 * Renders a built-in template, or returns null when `name` is not one. `defaults.appName` (the
 * sending tenant's name) names the sender when the request gave no `appName`: a code from nobody
 * in particular is what phishing looks like.
 */
export function renderBuiltIn(
  name: string,
  variables: Record<string, unknown>,
  defaults: { appName?: string | null } = {},
): RenderOutcome | null {
  if (!isBuiltInTemplate(name)) return null
  const template = BUILT_IN_RENDERERS[name]
  const parsed = template.variables.safeParse(variables)
  if (!parsed.success) return { ok: false, issues: fieldIssues(parsed.error, ['variables']) }
  // The tenant's name is used to render, not stored as if the request had sent it.
  const content = template.render(
    withDefaultAppName(parsed.data as Record<string, unknown>, defaults.appName),
  )
  return {
    ok: true,
    message: { ...content, template: name, variables: parsed.data as Record<string, unknown> },
  }
}

function withDefaultAppName(
  variables: Record<string, unknown>,
  appName: string | null | undefined,
): Record<string, unknown> {
  if (variables.appName !== undefined || !appName) return variables
  // A tenant name that would not pass as `appName` (too long, a line break) is left out, not refused:
  // the request itself was fine.
  const usable = appNameSchema.safeParse(appName)
  return usable.success && usable.data ? { ...variables, appName: usable.data } : variables
}

export { type OtpVariables, otpVariables, renderOtp } from './otp'
export { type PasswordResetVariables, passwordResetVariables, renderPasswordReset } from './password-reset'
export type { BuiltInContent } from './types'
export { renderVerifyEmail, type VerifyEmailVariables, verifyEmailVariables } from './verify-email'
