import { checkKeyDomain } from '../api-keys/key-scope'
import type { MessagePublishEvent } from '../outbox/events'
import type { SenderChoice } from '../senders/ports'
import { resolveSender } from '../senders/resolve-sender'
import { newMessage, render } from './accept-message'
import type { MessageRequest } from './message-request'
import type { AcceptDeps, MessageSource, NewQueuedMessage } from './ports'

export interface PreparedMessage {
  message: NewQueuedMessage
  event: MessagePublishEvent
}

/**
 * The part of accepting one message that writes nothing: render it (a missing variable is refused
 * now), resolve its sender (a `from` off the tenant's verified domains → 422) within the API key's
 * domain restriction, and build the row and its outbox event. `acceptMessage` does the same steps
 * inline; `acceptBatch` runs this per item before writing every accepted item in one transaction.
 */
export async function prepareMessage(
  request: MessageRequest,
  context: {
    tenantId: string
    idempotencyKey: string | null
    hash: string
    now: Date
    sendAt: Date | null
    source: MessageSource
    defaultSender: SenderChoice
    keyDomain: string | null
  },
  deps: Pick<AcceptDeps, 'renderer' | 'senderDomains'>,
): Promise<PreparedMessage> {
  const { tenantId } = context
  const { sender: saved, ...rendered } = await render(deps, tenantId, request.content)
  const sender = await resolveSender(
    { tenantId, explicit: request.sender, saved: saved ?? null, defaults: context.defaultSender },
    { domains: deps.senderDomains },
  )
  checkKeyDomain(context.keyDomain, sender.fromAddress)
  const message = newMessage(request, rendered, sender, context)
  const event: MessagePublishEvent = {
    v: 1,
    messageId: message.id,
    tenantId,
    lane: message.lane,
    generation: 0,
  }
  return { message, event }
}
