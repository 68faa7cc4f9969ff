import { acceptMessage } from '@fairlane/core/accept'
import { createAcceptStore } from '@fairlane/db/queries/accept-message'
import { ensurePlatformTenant, PLATFORM_TENANT_NAME } from '@fairlane/db/queries/platform-tenant'
import { createSenderDomains } from '@fairlane/db/queries/senders'
import type { ApiDeps } from '../api/v1/deps'
import { createMessageRenderer } from '../api/v1/message-renderer'

/** The name account mail is signed with, and the platform tenant's name (shared with the worker). */
export { PLATFORM_TENANT_NAME }

/** A built-in template (critical lane) or custom content (default lane), as `POST /api/v1/messages` takes. */
export type AccountMail =
  | { to: string; template: string; variables: Record<string, unknown> }
  | { to: string; subject: string; html: string; text: string }

export interface AccountMailer {
  /**
   * Accepts one message as the platform tenant's, through the same use case as the API (validation,
   * per-recipient limits, the outbox): the relay takes it from there like any tenant's mail.
   * `idempotencyKey` makes a retried request one message.
   */
  send(mail: AccountMail, options?: { idempotencyKey?: string }): Promise<{ id: string }>
}

/**
 * Fairlane's account mail (verification, password reset, invitations) sent as messages of the
 * platform tenant: a reset link rides the critical lane exactly like a customer's login code.
 */
export function createAccountMailer(
  deps: Pick<ApiDeps, 'db' | 'limiters' | 'clock' | 'renderer'>,
): AccountMailer {
  let platformTenant: Promise<string> | undefined
  const tenantId = () => {
    platformTenant ??= ensurePlatformTenant(deps.db, { name: PLATFORM_TENANT_NAME }).catch((error) => {
      platformTenant = undefined
      throw error
    })
    return platformTenant
  }
  return {
    async send(mail, options = {}) {
      const result = await acceptMessage(
        {
          tenantId: await tenantId(),
          body: mail,
          idempotencyKey: options.idempotencyKey ?? null,
          defaultSender: { from: null, replyTo: null },
          source: 'account',
        },
        {
          store: createAcceptStore(deps.db),
          renderer: deps.renderer ?? createMessageRenderer(deps.db),
          recipientLimiter: deps.limiters.recipient,
          senderDomains: createSenderDomains(deps.db),
          clock: deps.clock,
        },
      )
      return { id: result.id }
    },
  }
}
