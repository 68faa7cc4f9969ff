import { createPrivateKey, sign } from 'node:crypto'
import { generateDkimKeyPair } from '@fairlane/core'
import type { OutgoingMail } from '@fairlane/core/delivery'
import { createSmtpMailer } from '@fairlane/delivery/engine/lanes/smtp-mailer'
import { closeLaneTransports, createLaneTransports } from '@fairlane/mail'
import { round } from '../stats'
import { NEWSLETTER } from './newsletter'

const KINDS = ['unsigned', 'signed', 'unsignedThenRsa'] as const
type Kind = (typeof KINDS)[number]

/** The lane's connections, as the bench's worker has them (BULK_SMTP_CONNECTIONS). */
const CONNECTIONS = 8
const ROUNDS = 10
const SIGNED_DOMAIN = 'news.throughput.test'

/**
 * What signing costs on the worker's own send path, in this process: mails composed and sent by the
 * worker's mailer (`createSmtpMailer` over a pooled lane transport, `outgoingMessage`, our signer)
 * over SMTP to the bench's sink, `CONNECTIONS` held connections at once, as a batch sends them. Three
 * kinds in blocks, alternated in `ROUNDS` rounds: unsigned; signed (RSA-2048); unsigned with one bare
 * RSA-2048 signature over 600 bytes per mail (the floor, with the caches as the send path leaves
 * them). Each round's differences are taken at the same moment and the median kept, so a neighbour's
 * load that comes and goes cancels instead of landing on one kind, and the sink's CPU is not counted.
 * Unlike the worker's phases, the three kinds run at whatever rate they reach, without the pacer, the
 * queue or the database: what is left of the worker's signed-minus-unsigned difference beyond
 * `overFloorCpuMs` is not the signer's work on the path.
 */
export async function measureSendPathSigning(input: { smtpUrl: string; emails: number }) {
  const block = Math.max(CONNECTIONS, Math.min(400, Math.floor(input.emails / ROUNDS)))
  const perConnection = Math.ceil(block / CONNECTIONS)
  const sent = perConnection * CONNECTIONS
  const transports = createLaneTransports({
    smtpUrl: input.smtpUrl,
    timeoutMs: 30_000,
    connections: { critical: 1, default: 1, bulk: CONNECTIONS },
  })
  try {
    const mailer = createSmtpMailer(transports.bulk, { deadlineMs: 60_000, connections: CONNECTIONS })
    const hold = mailer.hold
    if (!hold) throw new Error('the SMTP mailer holds no connections')
    const privateKey = createPrivateKey((await generateDkimKeyPair()).privateKeyPem)
    const floorInput = Buffer.alloc(600, 'h')
    let sequence = 0
    const mail = (signed: boolean): OutgoingMail => {
      sequence += 1
      const to = `send-path${sequence}@throughput.test`
      return {
        from: signed
          ? `"Throughput News" <news@${SIGNED_DOMAIN}>`
          : { name: 'Throughput', address: 'mail@fairlane.localhost' },
        to,
        // Per recipient, as a campaign's rendered mail: the body hash cannot be reused.
        subject: `${NEWSLETTER.subject} (${sequence})`,
        html: `${NEWSLETTER.html}<!-- ${sequence} -->`,
        text: `${NEWSLETTER.text}\n${sequence}\n`,
        headers: {
          'List-Unsubscribe': `<https://fairlane.example/u/${sequence}-0123456789abcdefghijklmnopqrstuvwxyz>`,
          'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        },
        envelope: { from: `bounces-${sequence}@${SIGNED_DOMAIN}`, to },
        messageId: `<send-path-${sequence}@${SIGNED_DOMAIN}>`,
        ...(signed ? { dkim: { domainName: SIGNED_DOMAIN, keySelector: 'fl202612bnch', privateKey } } : {}),
      }
    }
    const runBlock = async (kind: Kind): Promise<number> => {
      const before = process.cpuUsage()
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          const connection = await hold()
          try {
            for (let i = 0; i < perConnection; i++) {
              if (kind === 'unsignedThenRsa') sign('sha256', floorInput, privateKey)
              await connection.send(mail(kind === 'signed'))
            }
          } finally {
            connection.release()
          }
        }),
      )
      const used = process.cpuUsage(before)
      return (used.user + used.system) / 1000 / sent
    }
    // Warm: connections open, code compiled, the key's first signature made.
    for (const kind of KINDS) await runBlock(kind)
    const cpu: Record<Kind, number[]> = { unsigned: [], signed: [], unsignedThenRsa: [] }
    for (let pass = 0; pass < ROUNDS; pass++) {
      // Alternating order: no kind always follows the same one.
      for (const kind of pass % 2 === 0 ? KINDS : [...KINDS].reverse()) cpu[kind].push(await runBlock(kind))
    }
    const difference = (a: Kind, b: Kind) =>
      median(cpu[a].map((value, index) => value - (cpu[b][index] ?? 0)))
    return {
      emailsPerBlock: sent,
      rounds: ROUNDS,
      cpuMsPerEmail: {
        unsigned: round(median(cpu.unsigned), 3),
        signed: round(median(cpu.signed), 3),
        unsignedThenRsa: round(median(cpu.unsignedThenRsa), 3),
      },
      /** Signed less unsigned, per round, median. */
      signingCpuMsPerEmail: round(difference('signed', 'unsigned'), 3),
      /** One bare RSA-2048 signature per mail on the same path: the floor. */
      rsa2048FloorCpuMsPerEmail: round(difference('unsignedThenRsa', 'unsigned'), 3),
      /** Signed less the floor (issue 30's goal: ≤ 0.15 ms). */
      overFloorCpuMs: round(difference('signed', 'unsignedThenRsa'), 3),
    }
  } finally {
    closeLaneTransports(transports)
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}
