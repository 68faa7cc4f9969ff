import type { Lane } from '@fairlane/core'
import {
  type HandOff,
  type HeldConnection,
  type Mailer,
  type MailSlot,
  type OutgoingMail,
  type ReceiverRoute,
  type ReserveOptions,
  SigningFailedError,
} from '@fairlane/core/delivery'
import {
  BODY_HANDOFF,
  installBodyHandoff,
  installDkimSignatureCheck,
  type LaneTransports,
  outgoingMessage,
} from '@fairlane/mail'
import { TransientSendError, toSendError } from '@fairlane/mail/smtp-errors'
import { createConnectionPlaces } from './connection-places'
import type { FirstTurns } from './first-turns'
import { tidyReply } from './redact'

type Transport = LaneTransports[Lane]
type SendMailOptions = Parameters<Transport['sendMail']>[0]

/**
 * The send use case's mailer over one lane's pooled nodemailer transport. At most `connections`
 * slots are held at once (the pool's size), so a send never waits in the pool's own queue: it waits
 * here, in `reserve`, before the tenant's token is taken, and the token's moment is the mail's moment give
 * or take one SMTP exchange (measured: a pool queue behind 20 concurrent jobs put up to 165 ms between
 * the two, enough to show a tenant above its plan at the receiving end).
 *
 * Each send has an overall deadline, counted from the reserve (the wait for a connection included), on
 * top of nodemailer's per-phase timeouts: a server that trickles its replies never trips an inactivity
 * timeout, and the send claim (SEND_LOCK_MS) must outlast the longest send. Failures reject as
 * `TransientSendError` / `PermanentSendError`, or `OutcomeUnknownSendError` when the connection failed
 * without a reply after the body had started to go out (the server may have the mail), or
 * `SigningFailedError` when mail to be DKIM-signed came out of the signer unsigned (nothing was sent).
 */
export function createSmtpMailer(transport: Transport, options: SlotMailerOptions): Mailer {
  // The signature check first: the hand-off hook must wrap the stream the socket reads.
  installDkimSignatureCheck(transport)
  installBodyHandoff(transport)
  return createSlotMailer((mail, _route, deadline) => sendOn(transport, mail, deadline), options)
}

/** Sends one message on a held slot, within the send's deadline; the route is MX mode's. */
export type SlotSend = (
  mail: OutgoingMail,
  route: ReceiverRoute | undefined,
  deadline: AbortSignal,
) => Promise<HandOff>

export interface SlotMailerOptions {
  deadlineMs: number
  connections: number
  /**
   * The bulk lane's first turns in progress in this process (`first-turns.ts`): an old flow's send
   * holds back before its message while one is (a batch before each message after its first).
   */
  firstTurns?: FirstTurns
}

/**
 * The slots of a mailer: at most `connections` held at once, each with the send's overall deadline
 * counted from its reserve. Relay mode sends on the lane's pooled transport (above); MX mode on the
 * transport that connects to the recipients' own MX hosts (`mx-mailer.ts`).
 */
export function createSlotMailer(send: SlotSend, options: SlotMailerOptions): Mailer {
  const places = createConnectionPlaces(options.connections)
  return {
    async reserve(route?: ReceiverRoute, reserve?: ReserveOptions): Promise<MailSlot> {
      // Counted from the reserve: the wait for a connection is part of the send's deadline.
      const deadline = AbortSignal.timeout(options.deadlineMs)
      if (reserve?.ahead !== true) await options.firstTurns?.pause()
      return place(deadline, reserve, (giveBack) => heldSlot((mail) => send(mail, route, deadline), giveBack))
    },
    hold(route?: ReceiverRoute, reserve?: ReserveOptions): Promise<HeldConnection> {
      // The wait for the place has the send deadline; each send then has a whole deadline of its own.
      const waited = AbortSignal.timeout(options.deadlineMs)
      const first = reserve?.ahead === true
      return place(waited, reserve, (giveBack) => heldConnection(route, giveBack, first))
    },
  }

  /**
   * A place held for a batch. Before each send after its first, a batch of old flows gives its place
   * to a new flow's first turn waiting for one (`yieldToAhead`) and waits for the next, within the
   * send's deadline; a first turn's own batch never yields (it would only yield to another). A wait
   * that runs out fails that send (transient); the next send waits for a place again.
   */
  function heldConnection(
    route: ReceiverRoute | undefined,
    placeGiveBack: () => void,
    ahead: boolean,
  ): HeldConnection {
    let giveBack: (() => void) | null = placeGiveBack
    let released = false
    let sent = 0
    /** `yields`: an old flow's batch past its first message, which gives way to first turns. */
    async function placeFor(deadline: AbortSignal, yields: boolean): Promise<() => void> {
      const held = giveBack
      giveBack = null
      let next: Promise<() => void>
      if (!held) next = places.take({ ahead, signal: deadline })
      else if (yields) next = places.yieldToAhead(held, deadline)
      else next = Promise.resolve(held)
      return next.catch(() => {
        throw noPlaceError(options.deadlineMs)
      })
    }
    return {
      async send(mail) {
        if (released) throw new Error('this SMTP connection was already given back')
        const deadline = AbortSignal.timeout(options.deadlineMs)
        const yields = sent > 0 && !ahead
        if (yields) await options.firstTurns?.pause()
        const held = await placeFor(deadline, yields)
        if (released) {
          // Released while it waited: the place goes straight back.
          held()
          throw new Error('this SMTP connection was already given back')
        }
        giveBack = held
        sent += 1
        return send(mail, route, deadline)
      },
      release() {
        released = true
        const held = giveBack
        giveBack = null
        held?.()
      },
    }
  }

  /** One of the mailer's places, held until the slot made of it is given back. */
  async function place<T>(
    deadline: AbortSignal,
    reserve: ReserveOptions | undefined,
    make: (giveBack: () => void) => T,
  ): Promise<T> {
    const giveBack = await places.take({ ahead: reserve?.ahead === true, signal: deadline }).catch(() => {
      throw noPlaceError(options.deadlineMs)
    })
    return make(giveBack)
  }
}

function noPlaceError(deadlineMs: number): TransientSendError {
  return new TransientSendError({
    message: `no SMTP connection came free within the send deadline (${deadlineMs} ms)`,
    suppressRecipient: false,
  })
}

/** One of the limiter's places, held: `send` gives it back once the server answered, `release` unused. */
function heldSlot(send: (mail: OutgoingMail) => Promise<HandOff>, giveBack: () => void): MailSlot {
  let held = true
  const release = () => {
    if (!held) return
    held = false
    giveBack()
  }
  return {
    release,
    async send(mail) {
      if (!held) throw new Error('this SMTP connection slot was already given back')
      try {
        return await send(mail)
      } finally {
        release()
      }
    },
  }
}

/**
 * The message goes composed, as one buffer (`raw`, with the explicit envelope): one write to the
 * socket, not one per line of nodemailer's streams.
 */
async function sendOn(transport: Transport, mail: OutgoingMail, deadline: AbortSignal): Promise<HandOff> {
  let bodyHandedOff = false
  let info: { response?: unknown }
  try {
    const message = {
      // Composed, and signed when it is to be signed: a signer that fails rejects before the send.
      ...(await outgoingMessage(mail)),
      // nodemailer 10 cancels a queued or in-flight send on abort; @types/nodemailer lags behind.
      signal: deadline,
      [BODY_HANDOFF]: () => {
        bodyHandedOff = true
      },
    } as SendMailOptions
    info = await transport.sendMail(message)
  } catch (error) {
    // Signing failed, or the check found no signature before any byte of the message went out.
    if (error instanceof SigningFailedError) throw error
    throw toSendError(error, { bodyHandedOff })
  }
  return typeof info.response === 'string' ? { response: tidyReply(info.response) } : {}
}

/**
 * The overall send deadline. Three SMTP phases' worth of timeout (connect and greeting, envelope,
 * data), capped twice: at 80% of the send claim, so the claim always outlives the send it protects,
 * and below the forced-exit timer, so a SIGTERM never has to cut a send off (a send cut off by exit
 * keeps its claim until the lock expires; one that hits its deadline releases it at once).
 */
export function sendDeadlineMs(input: {
  smtpTimeoutMs: number
  sendLockMs: number
  forceExitMs: number
}): number {
  const deadline = Math.min(
    3 * input.smtpTimeoutMs,
    Math.floor(input.sendLockMs * 0.8),
    input.forceExitMs - 2_000,
  )
  return Math.max(1_000, deadline)
}
