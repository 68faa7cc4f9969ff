import {
  BUILT_IN_TEMPLATES,
  isBuiltInTemplate,
  type MessageContent,
  type RenderOutcome,
} from '@fairlane/core/accept'
import { renderBuiltIn } from './built-in'
import { renderCustom } from './custom'
import { renderTenantTemplate, type TenantTemplate } from './tenant-template'

export interface RenderContext {
  /** The tenant's template with this slug, or null; the caller scopes it to one tenant. */
  loadTenantTemplate(slug: string): Promise<TenantTemplate | null>
  /** Who the mail is from, in words (the tenant's name): built-in mail names it when no `appName` is given. */
  senderName?(): Promise<string | null>
}

/**
 * Turns a validated request's content into the subject, HTML and text that will be sent. Built-in
 * names win over a tenant slug of the same name, so `otp` always means the platform's OTP mail (and
 * its critical lane).
 */
export async function renderContent(content: MessageContent, context: RenderContext): Promise<RenderOutcome> {
  if (content.kind === 'custom') return renderCustom(content)
  if (isBuiltInTemplate(content.template)) {
    const appName = content.variables.appName === undefined ? ((await context.senderName?.()) ?? null) : null
    const builtIn = renderBuiltIn(content.template, content.variables, { appName })
    if (builtIn !== null) return builtIn
  }
  const template = await context.loadTenantTemplate(content.template)
  if (template === null) {
    const names = BUILT_IN_TEMPLATES.join(', ')
    return {
      ok: false,
      issues: [
        {
          path: 'template',
          message: `unknown template "${content.template}": use ${names} or one of your template slugs`,
        },
      ],
    }
  }
  return renderTenantTemplate(template, content.variables)
}
