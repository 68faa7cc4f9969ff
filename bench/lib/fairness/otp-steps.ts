import type { Sql } from 'postgres'
import { percentile, round } from '../stats'
import type { Delivery } from './measure'

/**
 * Where a login code's time goes under load, step by step, from the timestamps the platform writes
 * anyway (PostgreSQL's `now()` is its transaction's start, on the same clock as this process):
 *  - `accept`: the moment before the POST → the accept transaction (`messages.created_at`): HTTP,
 *    key check, render;
 *  - `response`: the moment before the POST → the 202 in hand;
 *  - `relay`: accepted → the relay pass that claimed its outbox row (`outbox.published_at`): NOTIFY
 *    and the wake of a relay;
 *  - `send`: the relay's pass → the sink's `receivedAt`: the job added, picked up by a critical
 *    lane worker, claimed, composed, a connection and a token, SMTP;
 *  - `mark`: the sink's receipt → the mark's transaction (`messages.sent_at`).
 * Each as p50 / p99 in ms over the codes that reached the sink.
 */
export interface OtpSteps {
  samples: number
  accept: StepSummary
  response: StepSummary
  relay: StepSummary
  send: StepSummary
  mark: StepSummary
}

interface StepSummary {
  p50: number | null
  p99: number | null
}

interface OtpRow {
  to: string
  createdAt: number
  publishedAt: number | null
  sentAt: number | null
}

export async function otpSteps(
  sql: Sql,
  input: {
    domain: string
    sentAt: Map<string, number>
    answeredAt: Map<string, number>
    deliveries: Delivery[]
  },
): Promise<OtpSteps> {
  const rows = await sql<OtpRow[]>`
    select m.to_address as "to",
      (extract(epoch from m.created_at) * 1000)::float8 as "createdAt",
      (extract(epoch from o.published_at) * 1000)::float8 as "publishedAt",
      (extract(epoch from m.sent_at) * 1000)::float8 as "sentAt"
    from messages m
    left join outbox o on o.payload->>'messageId' = m.id::text
    where m.to_address like ${`%@${input.domain}`} and m.campaign_id is null`
  const received = new Map(input.deliveries.map((delivery) => [delivery.to, delivery.at]))
  const steps = { accept: [], response: [], relay: [], send: [], mark: [] } as Record<
    keyof Omit<OtpSteps, 'samples'>,
    number[]
  >
  let samples = 0
  for (const row of rows) {
    const posted = input.sentAt.get(row.to)
    const at = received.get(row.to)
    if (posted === undefined || at === undefined || row.publishedAt === null || row.sentAt === null) continue
    samples++
    steps.accept.push(row.createdAt - posted)
    const answered = input.answeredAt.get(row.to)
    if (answered !== undefined) steps.response.push(answered - posted)
    steps.relay.push(row.publishedAt - row.createdAt)
    steps.send.push(at - row.publishedAt)
    steps.mark.push(row.sentAt - at)
  }
  const summary = (values: number[]): StepSummary =>
    values.length === 0
      ? { p50: null, p99: null }
      : { p50: round(percentile(values, 50)), p99: round(percentile(values, 99)) }
  return {
    samples,
    accept: summary(steps.accept),
    response: summary(steps.response),
    relay: summary(steps.relay),
    send: summary(steps.send),
    mark: summary(steps.mark),
  }
}

/** `fairlane_outbox_published_total` of one worker's /metrics: which process's relay moved the codes. */
export async function outboxPublished(metricsUrl: string): Promise<number | null> {
  const response = await fetch(metricsUrl).catch(() => undefined)
  if (!response?.ok) return null
  const line = (await response.text())
    .split('\n')
    .find((candidate) => candidate.startsWith('fairlane_outbox_published_total'))
  return line === undefined ? null : Number(line.split(' ').at(-1))
}
