import type { Mailer } from '@fairlane/core/delivery'
import type { MxTransport } from '@fairlane/delivery/mx/mx-transport'
import { tidyReply } from './redact'
import { createSlotMailer, type SlotMailerOptions } from './smtp-mailer'

/**
 * MX mode's mailer: each slot sends to the recipient domain's own MX hosts from the egress address
 * the receiver gate chose (`ReceiverRoute`), within the send's deadline. The slots bound the lane's
 * sends in flight; the transport bounds the connections per MX host.
 */
export function createMxMailer(transport: MxTransport, options: SlotMailerOptions): Mailer {
  return createSlotMailer(async (mail, route, deadline) => {
    const handOff = await transport.send(mail, {
      egressAddress: route?.egressAddress,
      signal: deadline,
      ...(route?.limits ? { limits: route.limits } : {}),
    })
    return handOff.response === undefined ? {} : { response: tidyReply(handOff.response) }
  }, options)
}
