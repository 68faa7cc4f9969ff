import type { Lane } from '../domain/lanes'

/**
 * The built-in templates. Each is someone waiting at a login, reset or verification screen, so they ride the
 * `critical` lane and are limited per recipient (a leaked key must not be able to flood one inbox
 * with codes); tenant templates and custom content are ordinary transactional mail (`default`).
 */
export const BUILT_IN_TEMPLATES = ['otp', 'password-reset', 'verify-email'] as const
export type BuiltInTemplateName = (typeof BUILT_IN_TEMPLATES)[number]

export function isBuiltInTemplate(name: string): name is BuiltInTemplateName {
  return (BUILT_IN_TEMPLATES as readonly string[]).includes(name)
}

export function laneForTemplate(template: string | null): Lane {
  return template !== null && isBuiltInTemplate(template) ? 'critical' : 'default'
}

/** Per-recipient limits apply exactly to the critical lane's templates. */
export function isRecipientLimited(template: string | null): boolean {
  return laneForTemplate(template) === 'critical'
}
