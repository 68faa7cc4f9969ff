import { describe, expect, it } from 'vitest'
import { MEMBERSHIP_ROLES } from '../domain/statuses'
import { canAssignRole, decideAccess, PERMISSION_NAMES, PERMISSIONS } from './permissions'

const good = { emailVerified: true, tenantApproved: true }

describe('decideAccess', () => {
  for (const permission of PERMISSION_NAMES) {
    for (const role of MEMBERSHIP_ROLES) {
      const expected = (PERMISSIONS[permission] as readonly string[]).includes(role)
      it(`${role} ${expected ? 'may' : 'may not'} ${permission}`, () => {
        const decision = decideAccess({ role, ...good }, permission)
        expect(decision.allowed).toBe(expected)
        if (!decision.allowed) {
          expect(decision.reason).toBe('role')
          expect(decision.message).toContain(permission)
        }
      })
    }
  }

  it('keeps a member away from every admin thing', () => {
    const adminOnly = PERMISSION_NAMES.filter(
      (p) => !(PERMISSIONS[p] as readonly string[]).includes('member'),
    )
    expect(adminOnly).toEqual(
      expect.arrayContaining(['members.manage', 'domains.manage', 'apiKeys.manage', 'webhooks.manage']),
    )
  })

  it('holds sending and key creation until the email is verified, then until the tenant is approved', () => {
    expect(
      decideAccess({ role: 'owner', emailVerified: false, tenantApproved: true }, 'campaigns.send'),
    ).toMatchObject({
      allowed: false,
      reason: 'unverified',
    })
    expect(
      decideAccess({ role: 'owner', emailVerified: true, tenantApproved: false }, 'apiKeys.manage'),
    ).toMatchObject({
      allowed: false,
      reason: 'held',
    })
    // Everything else works before verification: a new tenant can look around and prepare.
    expect(
      decideAccess({ role: 'owner', emailVerified: false, tenantApproved: false }, 'campaigns.manage'),
    ).toEqual({
      allowed: true,
    })
  })

  it('refuses by role before standing: a member learns it is the role, not the email', () => {
    expect(
      decideAccess({ role: 'member', emailVerified: false, tenantApproved: true }, 'apiKeys.manage'),
    ).toMatchObject({
      reason: 'role',
    })
  })
})

describe('canAssignRole', () => {
  it('lets only owners grant the owner role and members grant nothing', () => {
    expect(canAssignRole('owner', 'owner')).toBe(true)
    expect(canAssignRole('admin', 'owner')).toBe(false)
    expect(canAssignRole('admin', 'admin')).toBe(true)
    expect(canAssignRole('admin', 'member')).toBe(true)
    expect(canAssignRole('member', 'member')).toBe(false)
  })
})
