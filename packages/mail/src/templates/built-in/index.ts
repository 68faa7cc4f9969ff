import { type BuiltInTemplateName, isBuiltInTemplate, type RenderOutcome } from '@fairlane/core/accept'
import { fieldIssues } from '@fairlane/core/errors'
import type { z } from 'zod'
import { otpVariables, renderOtp } from './otp'
import { passwordResetVariables, renderPasswordReset } from './password-reset'
import type { BuiltInContent } from './types'

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
}

/** Renders a built-in template, or returns null when `name` is not one. */
export function renderBuiltIn(name: string, variables: Record<string, unknown>): RenderOutcome | null {
  if (!isBuiltInTemplate(name)) return null
  const template = BUILT_IN_RENDERERS[name]
  const parsed = template.variables.safeParse(variables)
  if (!parsed.success) return { ok: false, issues: fieldIssues(parsed.error, ['variables']) }
  const content = template.render(parsed.data)
  return {
    ok: true,
    message: { ...content, template: name, variables: parsed.data as Record<string, unknown> },
  }
}

export { type OtpVariables, otpVariables, renderOtp } from './otp'
export { type PasswordResetVariables, passwordResetVariables, renderPasswordReset } from './password-reset'
export type { BuiltInContent } from './types'
