import { beforeEach, describe, expect, it } from 'vitest'
import { AppError } from '../errors/app-error'
import { acceptInvitation, findInvitation } from './accept-invitation'
import { changeMemberRole, removeMember } from './change-member'
import { hashInvitationToken, INVITATION_TTL_MS, invitationUrl } from './invitation-token'
import { inviteMember, revokeInvitation } from './invite-member'
import { memoryTeamStore } from './memory-team'
import type { TeamActor } from './ports'
import { parseInvitationRequest, parseMemberRolePatch } from './team-input'

const TENANT = 't1'
const owner: TeamActor = { userId: 'owner', label: 'owner@example.com', role: 'owner', emailVerified: true }
const admin: TeamActor = { userId: 'admin', label: 'admin@example.com', role: 'admin', emailVerified: true }
const member: TeamActor = {
  userId: 'member',
  label: 'member@example.com',
  role: 'member',
  emailVerified: true,
}

function setup(limits = { perHour: 20, maxOpen: 50 }, perRecipient = 5) {
  const fake = memoryTeamStore()
  fake.addMember(TENANT, 'owner', 'owner')
  fake.addMember(TENANT, 'admin', 'admin')
  fake.addMember(TENANT, 'member', 'member')
  let now = new Date('2026-12-05T10:00:00Z')
  const sent: Array<{ to: string; acceptUrl: string }> = []
  let tokens = 0
  const taken = new Map<string, number>()
  const deps = {
    store: fake.store,
    limits,
    recipientLimiter: {
      async consume({ tenantId, address }: { tenantId: string; address: string }) {
        const key = `${tenantId}/${address}`
        taken.set(key, (taken.get(key) ?? 0) + 1)
        return (taken.get(key) ?? 0) > perRecipient
          ? { allowed: false as const, retryAfterSeconds: 60 }
          : { allowed: true as const }
      },
    },
    clock: { now: () => now },
    appUrl: 'https://app.example/',
    generateToken: () => `token-${++tokens}`,
    mailer: {
      async sendInvitation(input: { invitation: { email: string }; acceptUrl: string }) {
        sent.push({ to: input.invitation.email, acceptUrl: input.acceptUrl })
      },
    },
  }
  const advance = (ms: number) => {
    now = new Date(now.getTime() + ms)
  }
  return { fake, deps, sent, advance }
}

async function refusalOf(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string; limit?: string; retryAfterSeconds?: number }> {
  try {
    await promise
  } catch (error) {
    if (error instanceof AppError) {
      return {
        code: error.code,
        message: error.message,
        ...(error.limit ? { limit: error.limit } : {}),
        ...(error.retryAfterSeconds ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
      }
    }
    throw error
  }
  throw new Error('expected a refusal')
}

describe('inviting', () => {
  let t: ReturnType<typeof setup>
  beforeEach(() => {
    t = setup()
  })

  it('stores only the hash, mails the link and audits the invitation', async () => {
    const invitation = await inviteMember(
      { tenantId: TENANT, request: parseInvitationRequest({ email: ' New@Example.com ' }), actor: admin },
      t.deps,
    )
    expect(invitation).toMatchObject({
      email: 'new@example.com',
      role: 'member',
      invitedBy: 'admin@example.com',
    })
    expect(invitation.expiresAt.getTime() - invitation.createdAt.getTime()).toBe(INVITATION_TTL_MS)
    expect(t.fake.invitations[0]?.tokenHash).toBe(hashInvitationToken('token-1'))
    expect(t.sent).toEqual([{ to: 'new@example.com', acceptUrl: 'https://app.example/invite/token-1' }])
    expect(t.fake.audit.map((entry) => entry.action)).toEqual(['invitation.create'])
  })

  it('refuses an address already a member with 409, and an owner invitation from an admin', async () => {
    const conflict = await refusalOf(
      inviteMember(
        { tenantId: TENANT, request: { email: 'member@example.com', role: 'member' }, actor: owner },
        t.deps,
      ),
    )
    expect(conflict.code).toBe('conflict')
    const forbidden = await refusalOf(
      inviteMember(
        { tenantId: TENANT, request: { email: 'x@example.com', role: 'owner' }, actor: admin },
        t.deps,
      ),
    )
    expect(forbidden.code).toBe('forbidden')
    expect(t.sent).toEqual([])
  })

  it('replaces the open invitation: the first link stops working', async () => {
    const request = { email: 'new@example.com', role: 'member' as const }
    await inviteMember({ tenantId: TENANT, request, actor: owner }, t.deps)
    await inviteMember({ tenantId: TENANT, request: { ...request, role: 'admin' }, actor: owner }, t.deps)
    expect(await findInvitation('token-1', t.deps)).toMatchObject({ kind: 'refused', reason: 'revoked' })
    expect(await findInvitation('token-2', t.deps)).toMatchObject({ kind: 'open' })
  })

  it('names the field of bad input', () => {
    expect(() => parseInvitationRequest({ email: 'nope' })).toThrow(/email/)
    expect(() => parseInvitationRequest({ email: 'a@b.co', role: 'king' })).toThrow(/role/)
    expect(() => parseMemberRolePatch({})).toThrow(/role/)
    expect(invitationUrl('https://x.test', 'a b')).toBe('https://x.test/invite/a%20b')
  })
})

describe('inviting needs good standing and stays within limits', () => {
  const invite = (t: ReturnType<typeof setup>, email: string, actor: TeamActor = owner) =>
    inviteMember({ tenantId: TENANT, request: { email, role: 'member' }, actor }, t.deps)

  it('refuses an unverified user (and an actor that does not say) with 403, writing and mailing nothing', async () => {
    const t = setup()
    for (const actor of [
      { ...owner, emailVerified: false },
      { ...owner, emailVerified: undefined },
    ]) {
      const refused = await refusalOf(invite(t, 'stranger@example.net', actor))
      expect(refused.code).toBe('forbidden')
      expect(refused.message).toMatch(/Verify your email address/)
    }
    expect(t.fake.invitations).toEqual([])
    expect(t.sent).toEqual([])
  })

  it('refuses a tenant held for approval with 403, writing and mailing nothing', async () => {
    const t = setup()
    t.fake.hold(TENANT)
    const refused = await refusalOf(invite(t, 'stranger@example.net'))
    expect(refused).toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(/waiting for approval/),
    })
    expect(t.fake.invitations).toEqual([])
    expect(t.sent).toEqual([])
  })

  it('refuses one more than perHour in an hour (429, invitations) until the first ages out', async () => {
    const t = setup({ perHour: 3, maxOpen: 50 })
    for (const n of [1, 2, 3]) {
      await invite(t, `n${n}@example.com`)
      t.advance(60_000)
    }
    const refused = await refusalOf(invite(t, 'n4@example.com'))
    expect(refused).toMatchObject({ code: 'rate_limited', limit: 'invitations' })
    // The first was made 3 minutes ago: room again 57 minutes from now.
    expect(refused.retryAfterSeconds).toBe(57 * 60)
    expect(t.sent).toHaveLength(3)
    t.advance(57 * 60_000)
    await invite(t, 'n4@example.com')
    expect(t.sent).toHaveLength(4)
  })

  it('refuses one more open invitation than maxOpen (422); replacing one or revoking one makes room', async () => {
    const t = setup({ perHour: 100, maxOpen: 2 })
    const first = await invite(t, 'a@example.com')
    await invite(t, 'b@example.com')
    const refused = await refusalOf(invite(t, 'c@example.com'))
    expect(refused.code).toBe('unprocessable')
    expect(refused.message).toMatch(/2 open invitations, the most allowed \(2\)/)
    // Sending one of them again replaces it: still two open.
    await invite(t, 'b@example.com')
    await revokeInvitation({ tenantId: TENANT, invitationId: first.id, actor: owner }, t.deps)
    await invite(t, 'c@example.com')
    expect(t.sent.map((mail) => mail.to)).toEqual([
      'a@example.com',
      'b@example.com',
      'b@example.com',
      'c@example.com',
    ])
  })

  it('takes the per-recipient allowance of login codes: one address is not mailed over and over', async () => {
    const t = setup({ perHour: 100, maxOpen: 50 }, 2)
    await invite(t, 'a@example.com')
    await invite(t, 'a@example.com')
    const refused = await refusalOf(invite(t, 'a@example.com'))
    expect(refused).toMatchObject({ code: 'rate_limited', limit: 'recipient', retryAfterSeconds: 60 })
    expect(t.sent).toHaveLength(2)
  })
})

describe('accepting', () => {
  let t: ReturnType<typeof setup>
  beforeEach(async () => {
    t = setup()
    await inviteMember(
      { tenantId: TENANT, request: { email: 'new@example.com', role: 'admin' }, actor: owner },
      t.deps,
    )
  })

  it('joins the user with the invited role, once', async () => {
    const first = await acceptInvitation(
      { token: 'token-1', userId: 'new', userEmail: 'new@example.com' },
      t.deps,
    )
    expect(first).toMatchObject({ kind: 'accepted', alreadyMember: false })
    expect(t.fake.roleOf(TENANT, 'new')).toBe('admin')
    const again = await acceptInvitation(
      { token: 'token-1', userId: 'other', userEmail: 'o@example.com' },
      t.deps,
    )
    expect(again).toMatchObject({ kind: 'refused', reason: 'used' })
    expect(t.fake.roleOf(TENANT, 'other')).toBeNull()
  })

  it('refuses expired, revoked and forged links, changing nothing', async () => {
    expect(
      await acceptInvitation({ token: 'forged', userId: 'u', userEmail: 'u@x.test' }, t.deps),
    ).toMatchObject({
      kind: 'refused',
      reason: 'invalid',
    })
    t.advance(INVITATION_TTL_MS)
    expect(
      await acceptInvitation({ token: 'token-1', userId: 'u', userEmail: 'u@x.test' }, t.deps),
    ).toMatchObject({
      kind: 'refused',
      reason: 'expired',
    })
    const [open] = t.fake.invitations
    await revokeInvitation({ tenantId: TENANT, invitationId: open?.id ?? '', actor: admin }, t.deps)
    expect(await findInvitation('token-1', t.deps)).toMatchObject({ kind: 'refused', reason: 'revoked' })
    expect(t.fake.roleOf(TENANT, 'u')).toBeNull()
    expect(t.fake.audit.map((entry) => entry.action)).toEqual(['invitation.create', 'invitation.revoke'])
  })

  it('leaves a user already a member as they were', async () => {
    const outcome = await acceptInvitation(
      { token: 'token-1', userId: 'member', userEmail: 'm@x.test' },
      t.deps,
    )
    expect(outcome).toMatchObject({ kind: 'accepted', alreadyMember: true })
    expect(t.fake.roleOf(TENANT, 'member')).toBe('member')
  })

  it('answers 404 for revoking another tenant’s invitation', async () => {
    const [open] = t.fake.invitations
    const refusal = await refusalOf(
      revokeInvitation({ tenantId: 't2', invitationId: open?.id ?? '', actor: owner }, t.deps),
    )
    expect(refusal.code).toBe('not_found')
  })
})

describe('roles and leaving', () => {
  let t: ReturnType<typeof setup>
  beforeEach(() => {
    t = setup()
  })

  it('lets an admin promote a member to admin but not to owner, nor demote an owner', async () => {
    await changeMemberRole({ tenantId: TENANT, userId: 'member', role: 'admin', actor: admin }, t.deps)
    expect(t.fake.roleOf(TENANT, 'member')).toBe('admin')
    expect(
      (
        await refusalOf(
          changeMemberRole({ tenantId: TENANT, userId: 'member', role: 'owner', actor: admin }, t.deps),
        )
      ).code,
    ).toBe('forbidden')
    expect(
      (
        await refusalOf(
          changeMemberRole({ tenantId: TENANT, userId: 'owner', role: 'admin', actor: admin }, t.deps),
        )
      ).code,
    ).toBe('forbidden')
    expect(t.fake.audit.map((entry) => entry.action)).toEqual(['member.role_change'])
  })

  it('keeps the last owner: no demotion, removal or leaving (422)', async () => {
    const demote = await refusalOf(
      changeMemberRole({ tenantId: TENANT, userId: 'owner', role: 'member', actor: owner }, t.deps),
    )
    expect(demote.code).toBe('unprocessable')
    expect(demote.message).toMatch(/last owner/)
    expect(
      (await refusalOf(removeMember({ tenantId: TENANT, userId: 'owner', actor: owner }, t.deps))).code,
    ).toBe('unprocessable')
    expect(t.fake.roleOf(TENANT, 'owner')).toBe('owner')
    await changeMemberRole({ tenantId: TENANT, userId: 'admin', role: 'owner', actor: owner }, t.deps)
    await removeMember({ tenantId: TENANT, userId: 'owner', actor: owner }, t.deps)
    expect(t.fake.roleOf(TENANT, 'owner')).toBeNull()
    expect(t.fake.audit.map((entry) => entry.action)).toEqual(['member.role_change', 'member.leave'])
  })

  it('lets a member leave but not remove anyone', async () => {
    expect(
      (await refusalOf(removeMember({ tenantId: TENANT, userId: 'admin', actor: member }, t.deps))).code,
    ).toBe('forbidden')
    await removeMember({ tenantId: TENANT, userId: 'member', actor: member }, t.deps)
    expect(t.fake.roleOf(TENANT, 'member')).toBeNull()
    expect(
      (await refusalOf(removeMember({ tenantId: TENANT, userId: 'nobody', actor: owner }, t.deps))).code,
    ).toBe('not_found')
  })
})
