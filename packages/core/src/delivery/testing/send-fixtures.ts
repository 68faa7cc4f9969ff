import type { ClaimedMessage, DeliveryStore } from '../ports'
import type { SendDeps } from '../send-message'

/**
 * The fakes `sendMessage`'s and `sendBatch`'s unit tests share: a claimed message of platform mail,
 * a store whose writes all succeed (each test overrides the ones it watches), and the deps that do
 * not vary (clock, claim length, platform sender, return path, Message-ID).
 */

/** A claimed plain-text message from the platform sender; `overrides` say what the test needs. */
export function claimedMessage(
  overrides: Partial<ClaimedMessage> & Pick<ClaimedMessage, 'id' | 'tenantId'>,
): ClaimedMessage {
  return {
    lane: 'bulk',
    campaignId: null,
    toAddress: `${overrides.id}@example.com`,
    subject: 'News',
    html: null,
    text: 'Hello',
    attempts: 1,
    generation: 0,
    createdAt: new Date(0),
    lockToken: `lock-${overrides.id}`,
    recipientSuppression: null,
    feedback: null,
    recipientUnsubscribed: false,
    tracking: { opens: false, clicks: false },
    trackingDisabled: false,
    contact: null,
    fromAddress: null,
    replyTo: null,
    sendingDomainId: null,
    tenantName: 'Acme',
    ...overrides,
  }
}

/** A store with nothing to claim, whose every write succeeds: spread it and override what is watched. */
export function acceptingStore(): DeliveryStore {
  return {
    claim: async () => undefined,
    readState: async () => undefined,
    readContent: async () => undefined,
    markSent: async () => true,
    release: async () => true,
    noteOutcomeUnknown: async () => true,
    unclaim: async () => true,
    markFailed: async () => true,
    markSuppressed: async () => true,
    settleByFeedback: async () => true,
    markHeld: async () => 'held',
    suppress: async () => {},
  }
}

/** The deps of a send that no test varies: a fixed clock at 10 s, a 30 s claim, platform mail. */
export function platformSendDeps(): Omit<SendDeps, 'store' | 'mailer' | 'gate'> {
  return {
    clock: { now: () => new Date(10_000) },
    lockMs: 30_000,
    mailFrom: 'mail@fairlane.test',
    returnPath: { bounceDomain: 'bounces.fairlane.test', secret: 'return-path-secret' },
    signer: {
      signingFor: async () => {
        throw new Error('platform mail is not signed per domain')
      },
    },
    messageIdFor: (id) => `<${id}@fairlane.test>`,
  }
}
