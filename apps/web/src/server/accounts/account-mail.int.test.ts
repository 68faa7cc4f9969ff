import { startTestPipeline, type TestPipeline } from '@fairlane/delivery/testing/pipeline'
import { startTestSink } from '@fairlane/delivery/testing/sink'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Auth, createAuth } from '../auth/better-auth'
import { CLIENT_ADDRESS_HEADER } from '../http/client-address'
import {
  createWebHarness,
  TEST_APP_ORIGIN,
  TEST_SESSION_SECRET,
  type WebHarness,
} from '../test-support/harness'
import { createAccountMailer } from './account-mail'
import { RESET_PASSWORD_LANDING, VERIFY_EMAIL_LANDING } from './auth-mail'
import { requestPasswordReset, resetPassword } from './password-reset'
import { signUpTenant } from './sign-up-tenant'

/**
 * Verification and reset mail end to end in one process: better-auth's flows send through the
 * account mailer as the platform tenant's messages, the worker's real pipeline delivers them on the
 * critical lane to the sink, and the test follows the links it finds there.
 */
const env = setupTestEnvironment('account-mail')

let harness: WebHarness
let sink: MailSink
let pipeline: TestPipeline
let auth: Auth
let people = 0

type StoredMessage = ReturnType<MailSink['store']['list']>[number]

beforeAll(async () => {
  harness = createWebHarness(env)
  sink = await startTestSink()
  pipeline = await startTestPipeline(env, sink)
  auth = createAuth({
    db: harness.database.db,
    secret: TEST_SESSION_SECRET,
    baseURL: TEST_APP_ORIGIN,
    nextCookies: false,
    throttle: harness.authThrottle,
    accountMail: {
      mailer: createAccountMailer(harness.apiDeps()),
      signupMode: 'verify',
      logger: harness.logger,
    },
  })
})

afterAll(async () => {
  await pipeline?.stop()
  await sink?.close()
  await harness?.close()
})

function person() {
  people += 1
  return {
    email: `person-${people}-${Date.now()}@example.test`,
    password: 'correct horse battery staple',
    headers: new Headers({ [CLIENT_ADDRESS_HEADER]: `198.19.0.${people}` }),
  }
}

/** The one mail for `to` at the sink, and how long after `sinceMs` it arrived. */
async function mailAtSink(to: string, sinceMs: number): Promise<{ mail: StoredMessage; latencyMs: number }> {
  const mail = await eventually(
    () => {
      const [found] = sink.store.list({ to })
      if (!found) throw new Error(`no mail for ${to} at the sink yet`)
      return found
    },
    { timeoutMs: 10_000 },
  )
  return { mail, latencyMs: Date.parse(mail.receivedAt) - sinceMs }
}

function linkIn(mail: StoredMessage): URL {
  const match = /https?:\/\/\S+/.exec(mail.text)
  if (!match) throw new Error(`no link in: ${mail.text}`)
  return new URL(match[0])
}

/** The message rows for `to`, with whether their tenant is the platform's. */
async function messagesTo(to: string) {
  return harness.database.sql<{ lane: string; template: string; status: string; is_platform: boolean }[]>`
    select m.lane, m.template, m.status, t.is_platform
    from messages m join tenants t on t.id = m.tenant_id
    where m.to_address = ${to}
    order by m.created_at`
}

async function emailVerified(email: string): Promise<boolean> {
  const [row] = await harness.database.sql<{ email_verified: boolean }[]>`
    select email_verified from users where email = ${email}`
  return row?.email_verified === true
}

const get = (url: URL | string) => auth.handler(new Request(url, { redirect: 'manual' }))

describe('verification mail', () => {
  it('is the platform tenant’s verify-email on the critical lane, reaches the sink, and its link verifies once', async () => {
    const who = person()
    const startedMs = Date.now()
    const outcome = await signUpTenant(
      { company: 'Verify Co', name: 'Vera', email: who.email, password: who.password },
      { auth, db: harness.database.db, headers: who.headers },
    )
    expect(outcome.kind).toBe('created')
    expect(await emailVerified(who.email)).toBe(false)

    const { mail, latencyMs } = await mailAtSink(who.email, startedMs)
    harness.logger.info({ latencyMs, kind: 'verify-email' }, 'request to sink receipt')
    console.info(`verify-email: sign-up request to sink receipt in ${latencyMs} ms`)
    expect(mail.subject).toBe('Verify your email for Fairlane')
    await eventually(async () => {
      expect(await messagesTo(who.email)).toEqual([
        { lane: 'critical', template: 'verify-email', status: 'sent', is_platform: true },
      ])
      return true
    })

    const link = linkIn(mail)
    expect(link.pathname).toBe('/api/auth/verify-email')
    const verified = await get(link)
    expect(verified.status).toBe(302)
    expect(verified.headers.get('location')).toBe(VERIFY_EMAIL_LANDING)
    expect(await emailVerified(who.email)).toBe(true)

    // Used again: nothing changes, the landing page says it is verified.
    const again = await get(link)
    expect(again.headers.get('location')).toBe(VERIFY_EMAIL_LANDING)
  })

  it('refuses a forged or tampered token, changing nothing', async () => {
    const who = person()
    await signUpTenant(
      { company: 'Forged Co', name: 'Fred', email: who.email, password: who.password },
      { auth, db: harness.database.db, headers: who.headers },
    )
    const link = linkIn((await mailAtSink(who.email, Date.now())).mail)
    const token = link.searchParams.get('token') ?? ''
    link.searchParams.set('token', `${token.slice(0, -4)}AAAA`)
    const refused = await get(link)
    expect(refused.status).toBe(302)
    expect(refused.headers.get('location')).toBe(`${VERIFY_EMAIL_LANDING}?error=INVALID_TOKEN`)
    expect(await emailVerified(who.email)).toBe(false)
  })
})

/** How many verification rows there are, and how many hold `token` in clear (identifier or value). */
async function verificationRows(token: string) {
  const [row] = await harness.database.sql<{ total: number; holding_token: number }[]>`
    select count(*)::int as total,
      count(*) filter (where position(${token} in identifier) > 0 or position(${token} in value) > 0)::int
        as holding_token
    from verifications`
  return { total: row?.total ?? 0, holdingToken: row?.holding_token ?? 0 }
}

describe('password reset mail', () => {
  it('is the platform tenant’s password-reset on the critical lane; the link resets once and signs every session out', async () => {
    const who = person()
    await signUpTenant(
      { company: 'Reset Co', name: 'Rita', email: who.email, password: who.password },
      { auth, db: harness.database.db, headers: who.headers },
    )
    await mailAtSink(who.email, Date.now())
    const signedIn = await auth.api.signInEmail({
      body: { email: who.email, password: who.password },
      headers: who.headers,
      returnHeaders: true,
    })
    const cookie = signedIn.headers
      .getSetCookie()
      .map((header) => header.split(';')[0])
      .join('; ')
    expect(await auth.api.getSession({ headers: new Headers({ cookie }) })).not.toBeNull()

    const startedMs = Date.now()
    const answer = await auth.api.requestPasswordReset({
      body: { email: who.email, redirectTo: RESET_PASSWORD_LANDING },
    })
    const { mail, latencyMs } = await eventually(async () => {
      const found = sink.store.list({ to: who.email }).find((m) => m.subject.includes('password'))
      if (!found) throw new Error('no reset mail yet')
      return { mail: found, latencyMs: Date.parse(found.receivedAt) - startedMs }
    })
    harness.logger.info({ latencyMs, kind: 'password-reset' }, 'request to sink receipt')
    console.info(`password-reset: request to sink receipt in ${latencyMs} ms`)
    expect(mail.subject).toBe('Reset your Fairlane password')
    expect(mail.text).toContain('This link expires in 60 minutes.')
    await eventually(async () => {
      expect((await messagesTo(who.email))[1]).toEqual({
        lane: 'critical',
        template: 'password-reset',
        status: 'sent',
        is_platform: true,
      })
      return true
    })

    const landing = await get(linkIn(mail))
    expect(landing.status).toBe(302)
    const location = new URL(landing.headers.get('location') ?? '', TEST_APP_ORIGIN)
    expect(location.pathname).toBe(RESET_PASSWORD_LANDING)
    const token = location.searchParams.get('token') ?? ''
    expect(token).not.toBe('')
    // Stored hashed: the reset row is there, but nothing in the table is (or contains) the token.
    expect(await verificationRows(token)).toEqual({ total: expect.any(Number), holdingToken: 0 })
    expect((await verificationRows(token)).total).toBeGreaterThan(0)

    const newPassword = 'a brand new password 42'
    await auth.api.resetPassword({ body: { token, newPassword } })
    expect(await auth.api.getSession({ headers: new Headers({ cookie }) })).toBeNull()
    await expect(
      auth.api.signInEmail({ body: { email: who.email, password: newPassword }, headers: who.headers }),
    ).resolves.toMatchObject({ user: { email: who.email } })

    // Used again: refused, and the password stays the new one.
    await expect(
      auth.api.resetPassword({ body: { token, newPassword: 'someone else entirely' } }),
    ).rejects.toMatchObject({ body: { code: 'INVALID_TOKEN' } })
    const reused = await get(linkIn(mail))
    expect(reused.headers.get('location')).toContain('error=INVALID_TOKEN')

    // The first answer is the one an unknown address gets too.
    const unknown = 'nobody-here@example.test'
    expect(
      await auth.api.requestPasswordReset({ body: { email: unknown, redirectTo: RESET_PASSWORD_LANDING } }),
    ).toEqual(answer)
    expect(await messagesTo(unknown)).toEqual([])
  })

  it('the reset page’s own path (resetPassword) works with the hashed token; a link stored in clear before still works', async () => {
    const who = person()
    await signUpTenant(
      { company: 'Hash Co', name: 'Hana', email: who.email, password: who.password },
      { auth, db: harness.database.db, headers: who.headers },
    )
    expect(await requestPasswordReset({ email: who.email }, { auth })).toEqual({
      kind: 'sent',
      email: who.email,
    })
    const mail = await eventually(async () => {
      const found = sink.store.list({ to: who.email }).find((m) => m.subject.includes('password'))
      if (!found) throw new Error('no reset mail yet')
      return found
    })
    const landing = await get(linkIn(mail))
    const token =
      new URL(landing.headers.get('location') ?? '', TEST_APP_ORIGIN).searchParams.get('token') ?? ''
    expect(token).not.toBe('')
    expect((await verificationRows(token)).holdingToken).toBe(0)

    const newPassword = 'hashed tokens still reset'
    expect(await resetPassword({ token, newPassword }, { auth })).toEqual({ kind: 'reset', email: who.email })
    await expect(
      auth.api.signInEmail({ body: { email: who.email, password: newPassword }, headers: who.headers }),
    ).resolves.toMatchObject({ user: { email: who.email } })
    expect(await resetPassword({ token, newPassword: 'once is enough!!' }, { auth })).toEqual({
      kind: 'invalid-token',
    })

    // A row written in clear before hashing was switched on (a link mailed before the upgrade).
    const [user] = await harness.database.sql<
      { id: string }[]
    >`select id from users where email = ${who.email}`
    const legacy = `legacy-token-${Date.now()}`
    await harness.database.sql`
      insert into verifications (id, identifier, value, expires_at, created_at, updated_at)
      values (${`legacy-${Date.now()}`}, ${`reset-password:${legacy}`}, ${user?.id ?? ''},
        now() + interval '1 hour', now(), now())`
    const olderPassword = 'reset from an old link'
    expect(await resetPassword({ token: legacy, newPassword: olderPassword }, { auth })).toEqual({
      kind: 'reset',
      email: who.email,
    })
    await expect(
      auth.api.signInEmail({ body: { email: who.email, password: olderPassword }, headers: who.headers }),
    ).resolves.toMatchObject({ user: { email: who.email } })
  })
})
