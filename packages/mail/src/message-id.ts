/**
 * The Message-ID of a delivery, derived from the message row's id: the same on every attempt, so a
 * retry after an ambiguous failure is recognisable downstream (and counted once by the mail sink).
 */
export function messageIdFor(messageId: string, domain: string): string {
  return `<${messageId}@${domain}>`
}
