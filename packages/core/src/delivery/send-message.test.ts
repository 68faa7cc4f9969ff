import { describe, expect, it } from 'vitest'
import { ExpiredMessageError } from './expired-message-error'
import type {
  Admission,
  ClaimedMessage,
  DeliveryStore,
  HandOff,
  Mailer,
  MailSlot,
  OutgoingMail,
  ReceiverAdmission,
  ReceiverGate,
  ReceiverRoute,
  ReceiverVerdict,
  SendGate,
  UnclaimedClaim,
} from './ports'
import { type SendDeps, sendMessage } from './send-message'
import { acceptingStore, claimedMessage, platformSendDeps } from './testing/send-fixtures'

const job = { messageId: '0193a4b2-7c1d-7e8f-9a0b-1c2d3e4f5a6b', tenantId: 't1' }

function claimed(): ClaimedMessage {
  return claimedMessage({
    id: job.messageId,
    tenantId: job.tenantId,
    lane: 'critical',
    toAddress: 'to@example.com',
    subject: 'Your code',
    text: '123456',
    lockToken: 'lock-1',
  })
}

/** The store in memory: one claimable message; the writes after the claim are noted in order. */
function memoryStore(steps: string[]): DeliveryStore {
  let claimable = true
  return {
    ...acceptingStore(),
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
    async unclaim(claim) {
      steps.push(`unclaim until ${claim.untilMs}`)
      return true
    },
    async settleByFeedback(claim) {
      steps.push(`settled ${claim.status}`)
      return true
    },
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
  return { ...platformSendDeps(), store: memoryStore(steps), mailer, gate }
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

  it('times each step of a send that went out, in order, after the step it names', async () => {
    const { steps, deps } = sendRun({
      admit: async () => ({ ok: true }),
      smtp: async () => ({ response: '250 2.0.0 OK' }),
    })
    const timed: string[] = []
    await sendMessage(job, {
      ...deps,
      onStep: (step, ms) => {
        expect(ms).toBeGreaterThanOrEqual(0)
        // Each step is reported once the part of the run it names has happened.
        timed.push(`${step} after ${steps.at(-1)}`)
      },
    })
    expect(timed).toEqual([
      'claim after claim',
      'compose after claim',
      'connection after reserve',
      'token after admit t1/critical with 1 slot held',
      'smtp after slot released',
      'mark after markSent',
    ])
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

describe('sendMessage in MX mode: the receiving provider is asked first and learns from the reply', () => {
  const throttled = Object.assign(new Error('421 4.7.28 unusual rate of unsolicited mail'), {
    kind: 'transient' as const,
    suppressRecipient: false,
    responseCode: 421,
  })

  /** A receiver gate that notes its calls; `admit` and `learn` answer as told. */
  function receiverRun(options: {
    admit: ReceiverAdmission
    learn?: ReceiverVerdict
    smtp: (mail: OutgoingMail) => Promise<HandOff>
    createdAt?: Date
    maxAgeMs?: number
  }) {
    const run = sendRun({ admit: async () => ({ ok: true }), smtp: options.smtp })
    const unclaimed: UnclaimedClaim[] = []
    const failed: string[] = []
    const store = run.deps.store
    const receivers: ReceiverGate = {
      async admit(input) {
        run.steps.push(`receiver admit ${input.toAddress}`)
        return options.admit
      },
      async learn(input) {
        run.steps.push(`receiver learn ${input.outcome.kind} via ${input.route.provider}`)
        return options.learn ?? { kind: 'as-is' }
      },
    }
    const deps: SendDeps = {
      ...run.deps,
      receivers,
      ...(options.maxAgeMs === undefined ? {} : { maxAgeMs: options.maxAgeMs }),
      store: {
        ...store,
        claim: async (input) => {
          const message = await store.claim(input)
          return message && { ...message, createdAt: options.createdAt ?? new Date(0) }
        },
        unclaim: async (claim) => {
          unclaimed.push(claim)
          return store.unclaim(claim)
        },
        markFailed: async (claim) => {
          failed.push(`${claim.errorCode}: ${claim.error}`)
          return true
        },
      },
    }
    return { ...run, deps, unclaimed, failed }
  }

  it('a provider with no room defers the message before any connection or token, naming the provider', async () => {
    const run = receiverRun({
      admit: { ok: false, delayMs: 4_000, provider: 'google', reason: 'paused after 421 4.7.28' },
      smtp: async () => {
        throw new Error('nothing may be sent while the provider has no room')
      },
    })
    expect(await sendMessage(job, run.deps)).toEqual({ kind: 'deferred', delayMs: 4_000 })
    expect(run.steps).toEqual(['claim', 'receiver admit to@example.com', 'unclaim until 14000'])
    expect(run.unclaimed[0]).toMatchObject({ provider: 'google', reply: 'paused after 421 4.7.28' })
  })

  it('sends on the route the provider gave and tells it the mail was accepted', async () => {
    const routes: (ReceiverRoute | undefined)[] = []
    const run = receiverRun({
      admit: { ok: true, route: { provider: 'google', egressAddress: '127.0.0.2' } },
      smtp: async () => ({ response: '250 2.0.0 OK' }),
    })
    const reserve = run.deps.mailer.reserve
    run.deps.mailer = {
      reserve(route) {
        routes.push(route)
        return reserve(route)
      },
    }
    expect((await sendMessage(job, run.deps)).kind).toBe('sent')
    expect(routes).toEqual([{ provider: 'google', egressAddress: '127.0.0.2' }])
    expect(run.steps).toEqual([
      'claim',
      'receiver admit to@example.com',
      'reserve',
      'admit t1/critical with 1 slot held',
      'smtp',
      'slot released',
      'receiver learn accepted via google',
      'markSent',
    ])
  })

  it('a throttling reply defers the message to the provider’s pace, its attempt given back, the reply kept', async () => {
    const run = receiverRun({
      admit: { ok: true, route: { provider: 'google' } },
      learn: { kind: 'defer', delayMs: 60_000, provider: 'google', reply: '421 4.7.28 unusual rate' },
      smtp: async () => {
        throw throttled
      },
    })
    expect(await sendMessage(job, run.deps)).toEqual({ kind: 'deferred', delayMs: 60_000 })
    expect(run.steps.slice(-2)).toEqual(['receiver learn failed via google', 'unclaim until 70000'])
    expect(run.unclaimed[0]).toMatchObject({ provider: 'google', reply: '421 4.7.28 unusual rate' })
    expect(run.steps).not.toContain('release')
  })

  it('a failure the provider does not take as throttling is settled as before (released for a retry)', async () => {
    const run = receiverRun({
      admit: { ok: true, route: { provider: 'example.org' } },
      smtp: async () => {
        throw Object.assign(new Error('452 4.2.2 mailbox full'), {
          kind: 'transient' as const,
          suppressRecipient: false,
          responseCode: 452,
        })
      },
    })
    await expect(sendMessage(job, run.deps)).rejects.toThrow('452 4.2.2 mailbox full')
    expect(run.steps.slice(-2)).toEqual(['receiver learn failed via example.org', 'release'])
  })

  it('past DELIVERY_MAX_AGE_HOURS a deferral fails the message as expired, with the provider’s last reply', async () => {
    const run = receiverRun({
      admit: { ok: true, route: { provider: 'google' } },
      learn: { kind: 'defer', delayMs: 60_000, provider: 'google', reply: '421 4.7.28 unusual rate' },
      smtp: async () => {
        throw throttled
      },
      createdAt: new Date(10_000 - 72 * 3_600_000 + 30_000),
      maxAgeMs: 72 * 3_600_000,
    })
    await expect(sendMessage(job, run.deps)).rejects.toBeInstanceOf(ExpiredMessageError)
    expect(run.unclaimed).toEqual([])
    expect(run.failed).toEqual([
      'expired: deferred by google past the maximum age (72 h); last: 421 4.7.28 unusual rate',
    ])
  })
})

describe('sendMessage: content kept beside the row', () => {
  /** The run of `sendRun`, its claim saying `content` and its store answering `kept`. */
  function keptRun(content: 'raw' | 'attachments', kept: Awaited<ReturnType<DeliveryStore['readContent']>>) {
    const sent: OutgoingMail[] = []
    const run = sendRun({
      admit: async () => ({ ok: true }),
      smtp: async (mail) => {
        sent.push(mail)
        return { response: '250 OK' }
      },
    })
    const store = run.deps.store
    const asked: string[] = []
    run.deps.store = {
      ...store,
      claim: async (input) => {
        const message = await store.claim(input)
        return (
          message && {
            ...message,
            subject: 'Submitted',
            html: null,
            text: content === 'raw' ? null : 'hi',
            content,
          }
        )
      },
      readContent: async (input) => {
        asked.push(input.kind)
        return kept
      },
      markFailed: async (claim) => {
        run.steps.push(`failed ${claim.errorCode}`)
        return true
      },
    }
    return { ...run, sent, asked }
  }

  it('sends submitted MIME as raw bytes with our headers, untracked', async () => {
    const raw = Buffer.from('From: a@acme.test\r\nSubject: Submitted\r\n\r\nhello\r\n')
    const { deps, sent, asked } = keptRun('raw', { kind: 'raw', raw })
    expect(await sendMessage(job, deps)).toMatchObject({ kind: 'sent' })
    expect(asked).toEqual(['raw'])
    expect(sent[0]?.raw).toBe(raw)
    expect(sent[0]?.headers).toEqual({ 'Auto-Submitted': 'auto-generated' })
    expect(sent[0]?.html).toBeUndefined()
    expect(sent[0]?.messageId).toBe(`<${job.messageId}@fairlane.test>`)
  })

  it('attaches API mail’s files in order', async () => {
    const attachments = [
      { filename: 'a.pdf', contentType: 'application/pdf', contentId: null, content: Buffer.from('pdf') },
      { filename: 'b.png', contentType: 'image/png', contentId: 'b@acme', content: Buffer.from('png') },
    ]
    const { deps, sent } = keptRun('attachments', { kind: 'attachments', attachments })
    expect(await sendMessage(job, deps)).toMatchObject({ kind: 'sent' })
    expect(sent[0]?.attachments).toEqual(attachments)
    expect(sent[0]?.text).toBe('hi')
  })

  it('fails, sending nothing, when the kept content is gone', async () => {
    const { deps, sent, steps } = keptRun('raw', undefined)
    await expect(sendMessage(job, deps)).rejects.toThrow('the submitted message is no longer kept')
    expect(sent).toEqual([])
    expect(steps).toContain('failed undeliverable')
  })
})
