import type { MembershipRole } from '../domain/statuses'

/**
 * What a member of a tenant may do, by role. Every server action, page and tenant-facing route asks
 * `decideAccess` through one adapter (the web's `requirePermission`), never compares roles itself.
 *
 * - owners: everything, and alone the billing-like things (the plan, deleting the tenant, granting
 *   or taking the owner role);
 * - admins: members, domains, API keys, webhooks, settings, suppressions' removal, the audit log;
 * - members: contacts, lists, segments, templates, campaigns, and reading what was sent.
 */
export const PERMISSIONS = {
  /** Dashboard, messages, delivery logs: what every member may read. */
  'tenant.read': ['owner', 'admin', 'member'],
  /** One's own name and time zone (the /account page): the user's, whatever their role. */
  'profile.manage': ['owner', 'admin', 'member'],
  'contacts.manage': ['owner', 'admin', 'member'],
  'templates.manage': ['owner', 'admin', 'member'],
  /** Drafts, previews, duplicates, cancelling. */
  'campaigns.manage': ['owner', 'admin', 'member'],
  /** Scheduling or sending a campaign: also needs the tenant in good standing (below). */
  'campaigns.send': ['owner', 'admin', 'member'],
  /** Adding an address to the suppression list. */
  'suppressions.add': ['owner', 'admin', 'member'],
  /** Removing one (a resubscribe): mail starts reaching someone who said stop or bounced. */
  'suppressions.remove': ['owner', 'admin'],
  'members.manage': ['owner', 'admin'],
  'domains.manage': ['owner', 'admin'],
  /** Creating and revoking keys: also needs good standing to create. */
  'apiKeys.manage': ['owner', 'admin'],
  'webhooks.manage': ['owner', 'admin'],
  /** Default sender, tracking switches. */
  'settings.manage': ['owner', 'admin'],
  'audit.read': ['owner', 'admin'],
  /** The plan page and anything billing-like. */
  'plan.read': ['owner'],
  'tenant.delete': ['owner'],
} as const satisfies Record<string, readonly MembershipRole[]>

export type Permission = keyof typeof PERMISSIONS

export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as Permission[]

/** Permissions a tenant may use only once its user's email is verified and the platform approved it. */
const NEEDS_GOOD_STANDING: ReadonlySet<Permission> = new Set(['campaigns.send', 'apiKeys.manage'])

export interface Actor {
  role: MembershipRole
  /** The signed-in user's address is verified (always true under SIGNUP_MODE=open). */
  emailVerified: boolean
  /** The tenant is not held for the platform admin's approval (SIGNUP_MODE=approve). */
  tenantApproved: boolean
}

export type AccessRefusal = 'role' | 'unverified' | 'held'

export type AccessDecision = { allowed: true } | { allowed: false; reason: AccessRefusal; message: string }

export function roleAllows(role: MembershipRole, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly MembershipRole[]).includes(role)
}

/** Whether `actor` may use `permission`, and if not, why, in words for the person refused. */
export function decideAccess(actor: Actor, permission: Permission): AccessDecision {
  if (!roleAllows(actor.role, permission)) {
    const roles = PERMISSIONS[permission].join(' or ')
    return {
      allowed: false,
      reason: 'role',
      message: `Only a tenant's ${roles} may do this (${permission}); your role is ${actor.role}`,
    }
  }
  if (NEEDS_GOOD_STANDING.has(permission)) return standingDecision(actor)
  return { allowed: true }
}

/** Why a tenant not in good standing is refused, in words for the person refused. */
export const STANDING_REFUSALS = {
  unverified: 'Verify your email address first: open the link we sent you, or send a new one from the banner',
  held: 'Your account is waiting for approval by the Fairlane team; you can send once it is approved',
} as const satisfies Record<Exclude<AccessRefusal, 'role'>, string>

/**
 * Whether the tenant is in good standing: its user's address verified, the tenant not held for
 * approval. What mails or sends on the tenant's behalf (campaigns, API keys, invitations) asks this.
 */
export function standingDecision(actor: Pick<Actor, 'emailVerified' | 'tenantApproved'>): AccessDecision {
  if (!actor.emailVerified)
    return { allowed: false, reason: 'unverified', message: STANDING_REFUSALS.unverified }
  if (!actor.tenantApproved) return { allowed: false, reason: 'held', message: STANDING_REFUSALS.held }
  return { allowed: true }
}

/** Whether a permission is held back until the tenant is in good standing (the UI explains why). */
export function needsGoodStanding(permission: Permission): boolean {
  return NEEDS_GOOD_STANDING.has(permission)
}

/**
 * Who may give or take which role: only an owner grants or removes the owner role; owners and admins
 * manage admins and members.
 */
export function canAssignRole(actorRole: MembershipRole, role: MembershipRole): boolean {
  if (!roleAllows(actorRole, 'members.manage')) return false
  return role === 'owner' ? actorRole === 'owner' : true
}
