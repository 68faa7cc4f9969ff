import { describe, expect, it } from 'vitest'
import type {
  Admission,
  ClaimedMessage,
  DeliveryStore,
  HandOff,
  Mailer,
  MailSlot,
  OutgoingMail,
  SendGate,
} from './ports'
import { type SendDeps, sendMessage } from './send-message'

const job = { messageId: '0193a4b2-7c1d-7e8f-9a0b-1c2d3e4f5a6b', tenantId: 't1' }

function claimed(): ClaimedMessage {
  return {
    id: job.messageId,
    tenantId: job.tenantId,
    lane: 'critical',
    campaignId: null,
    toAddress: 'to@example.com',
    subject: 'Your code',
    html: null,
    text: '123456',
    attempts: 1,
    generation: 0,
    createdAt: new Date(0),
    lockToken: 'lock-1',
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
  }
}

/** The store in memory: one claimable message; the writes after the claim are noted in order. */
function memoryStore(steps: string[]): DeliveryStore {
  let claimable = true
  return {
    async claim() {
      if (!claimable) return undefined
      claimable = false
      steps.push('claim')
      return claimed()
    },
    async readState() {
      return { status: 'sending', lockRemainingMs: 1_000 }
    },
    async markSent() {
      steps.push('markSent')
      return true
    },
    async release() {
      steps.push('release')
      return true
    },
    async noteOutcomeUnknown() {
      return true
    },
    async unclaim(claim) {
      steps.push(`unclaim until ${claim.untilMs}`)
      return true
    },
    async markFailed() {
      return true
    },
    async markSuppressed() {
      return true
    },
    async settleByFeedback(claim) {
      steps.push(`settled ${claim.status}`)
      return true
    },
    async markHeld() {
      return 'held'
    },
    async suppress() {},
  }
}

/** One connection slot at a time, like a pool of one: `held` says whether it is out. */
function memoryMailer(steps: string[], send: (mail: OutgoingMail) => Promise<HandOff>) {
  const state = { held: 0, reserved: 0 }
  const mailer: Mailer = {
    async reserve(): Promise<MailSlot> {
      steps.push('reserve')
      state.held += 1
      state.reserved += 1
      let open = true
      const release = () => {
        if (!open) return
        open = false
        state.held -= 1
        steps.push('slot released')
      }
      return {
        release,
        async send(mail) {
          try {
            steps.push('smtp')
            return await send(mail)
          } finally {
            release()
          }
        },
      }
    },
  }
  return { mailer, state }
}

function depsWith(steps: string[], gate: SendGate, mailer: Mailer): SendDeps {
  return {
    store: memoryStore(steps),
    mailer,
    gate,
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

function recordingGate(steps: string[], answer: () => Promise<Admission>, held: () => number): SendGate {
  return {
    async admit(input) {
      steps.push(`admit ${input.tenantId}/${input.lane} with ${held()} slot held`)
      return answer()
    },
  }
}

/** One run's parts: the steps noted in order, the slot state, and the deps wired to them. */
function sendRun(options: {
  admit: () => Promise<Admission>
  smtp: (mail: OutgoingMail) => Promise<HandOff>
}) {
  const steps: string[] = []
  const { mailer, state } = memoryMailer(steps, options.smtp)
  const gate = recordingGate(steps, options.admit, () => state.held)
  return { steps, state, deps: depsWith(steps, gate, mailer) }
}

describe('sendMessage: a free connection, then the tenant token, then SMTP', () => {
  it('asks the gate only once a slot is held, and sends on that slot', async () => {
    const { steps, state, deps } = sendRun({
      admit: async () => ({ ok: true }),
      smtp: async () => ({ response: '250 2.0.0 OK' }),
    })
    const outcome = await sendMessage(job, deps)
    expect(outcome).toMatchObject({ kind: 'sent', recorded: true, acceptedAt: new Date(10_000) })
    expect(steps).toEqual([
      'claim',
      'reserve',
      'admit t1/critical with 1 slot held',
      'smtp',
      'slot released',
      'markSent',
    ])
    expect(state.held).toBe(0)
  })

  it('refused a token: gives the slot back before the claim, sends nothing, defers', async () => {
    const { steps, state, deps } = sendRun({
      admit: async () => ({ ok: false, delayMs: 320 }),
      smtp: async () => {
        throw new Error('nothing may be sent without a token')
      },
    })
    expect(await sendMessage(job, deps)).toEqual({ kind: 'deferred', delayMs: 320 })
    expect(steps).toEqual([
      'claim',
      'reserve',
      'admit t1/critical with 1 slot held',
      'slot released',
      'unclaim until 10320',
    ])
    expect(state.held).toBe(0)
  })

  it('gives the slot back when the gate throws, and releases the claim for the retry', async () => {
    const { steps, state, deps } = sendRun({
      admit: async () => {
        throw new Error('Connection is closed.')
      },
      smtp: async () => ({}),
    })
    await expect(sendMessage(job, deps)).rejects.toThrow('Connection is closed.')
    expect(steps).toEqual([
      'claim',
      'reserve',
      'admit t1/critical with 1 slot held',
      'slot released',
      'release',
    ])
    expect(state.held).toBe(0)
  })

  it('reserves no slot and asks no token when composing fails', async () => {
    const { steps, state, deps } = sendRun({
      admit: async () => ({ ok: true }),
      smtp: async () => ({}),
    })
    const store = deps.store
    deps.store = {
      ...store,
      claim: async (input) => ({ ...(await store.claim(input)), subject: null }) as ClaimedMessage,
    }
    await expect(sendMessage(job, deps)).rejects.toThrow('no rendered subject and body')
    expect(state.reserved).toBe(0)
    expect(steps).not.toContain('reserve')
  })

  it('gives the slot back when the send fails', async () => {
    const { steps, state, deps } = sendRun({
      admit: async () => ({ ok: true }),
      smtp: async () => {
        throw new Error('socket hang up')
      },
    })
    await expect(sendMessage(job, deps)).rejects.toThrow('socket hang up')
    expect(steps).toEqual([
      'claim',
      'reserve',
      'admit t1/critical with 1 slot held',
      'smtp',
      'slot released',
      'release',
    ])
    expect(state.held).toBe(0)
  })

  it('spends neither a slot nor a token on a message that is not claimable', async () => {
    const { steps, state, deps } = sendRun({
      admit: async () => ({ ok: true }),
      smtp: async () => ({}),
    })
    deps.store = {
      ...deps.store,
      claim: async () => undefined,
      readState: async () => ({ status: 'sent', lockRemainingMs: null }),
    }
    expect(await sendMessage(job, deps)).toEqual({ kind: 'skipped', reason: 'already-sent' })
    expect(steps).toEqual([])
    expect(state.reserved).toBe(0)
  })

  it('sends nothing again once the message’s own bounce or complaint came back: settles it by the report', async () => {
    for (const feedback of ['bounced', 'complained'] as const) {
      const { steps, state, deps } = sendRun({
        admit: async () => ({ ok: true }),
        smtp: async () => {
          throw new Error('a message its own report settled must not be sent again')
        },
      })
      const store = deps.store
      deps.store = {
        ...store,
        claim: async (input) => ({ ...(await store.claim(input)), feedback }) as ClaimedMessage,
      }
      expect(await sendMessage(job, deps)).toEqual({ kind: 'skipped', reason: 'feedback' })
      expect(steps).toEqual(['claim', `settled ${feedback}`])
      expect(state.reserved).toBe(0)
    }
  })

  it('ends a duplicate job of a bounced or complained message instead of waiting for a lock', async () => {
    for (const status of ['bounced', 'complained'] as const) {
      const { deps } = sendRun({ admit: async () => ({ ok: true }), smtp: async () => ({}) })
      deps.store = {
        ...deps.store,
        claim: async () => undefined,
        readState: async () => ({ status, lockRemainingMs: null }),
      }
      expect(await sendMessage(job, deps)).toEqual({ kind: 'skipped', reason: 'terminal' })
    }
  })
})
