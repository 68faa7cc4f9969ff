import {
  canAssignRole,
  MEMBERSHIP_ROLES,
  roleAllows,
  type StoredInvitation,
  type TeamMember,
} from '@fairlane/core'
import { listMembers, listOpenInvitations } from '@fairlane/db/queries/team'
import type { Metadata } from 'next'
import { type DataColumn, DataTable } from '@/components/data-table'
import { DateTime } from '@/components/date-time'
import { authorize, type TenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import {
  changeMemberRoleAction,
  leaveTenantAction,
  removeMemberAction,
  revokeInvitationAction,
} from './actions'
import { InviteForm } from './invite-form'

export const metadata: Metadata = { title: 'Members' }

const NOTICES: Record<string, string> = {
  revoked: 'Invitation revoked: its link no longer works.',
  'role-changed': 'Role changed.',
  removed: 'Member removed.',
}

function memberColumns(session: TenantSession, manage: boolean): DataColumn<TeamMember>[] {
  const columns: DataColumn<TeamMember>[] = [
    { header: 'Name', cell: (m) => m.name },
    { header: 'Email', cell: (m) => m.email },
    { header: 'Role', cell: (m) => <span data-testid={`role-${m.email}`}>{m.role}</span> },
    { header: 'Joined', cell: (m) => <DateTime value={m.joinedAt} /> },
  ]
  if (!manage) return columns
  const assignable = MEMBERSHIP_ROLES.filter((role) => canAssignRole(session.role, role))
  columns.push({
    header: 'Actions',
    cell: (m) =>
      m.userId === session.userId || !canAssignRole(session.role, m.role) ? null : (
        <span className="row-actions">
          <form action={changeMemberRoleAction} className="inline-form">
            <input type="hidden" name="userId" value={m.userId} />
            <label className="visually-hidden" htmlFor={`role-${m.userId}`}>
              Role of {m.email}
            </label>
            <select id={`role-${m.userId}`} name="role" defaultValue={m.role}>
              {assignable.map((role) => (
                <option key={role} value={role}>
                  {role}
                </option>
              ))}
            </select>{' '}
            <button type="submit" className="button-secondary">
              Change role
            </button>
          </form>{' '}
          <form action={removeMemberAction} className="inline-form">
            <input type="hidden" name="userId" value={m.userId} />
            <button type="submit" className="button-secondary">
              Remove
            </button>
          </form>
        </span>
      ),
  })
  return columns
}

const INVITATION_COLUMNS: DataColumn<StoredInvitation>[] = [
  { header: 'Email', cell: (i) => i.email },
  { header: 'Role', cell: (i) => i.role },
  { header: 'Invited by', cell: (i) => i.invitedBy },
  { header: 'Expires', cell: (i) => <DateTime value={i.expiresAt} /> },
  {
    header: 'Actions',
    cell: (i) => (
      <form action={revokeInvitationAction}>
        <input type="hidden" name="invitationId" value={i.id} />
        <button type="submit" className="button-secondary">
          Revoke
        </button>
      </form>
    ),
  },
]

/** Everyone sees the members and may leave; owners and admins invite, change roles and remove. */
export default async function MembersPage({
  searchParams,
}: {
  searchParams: Promise<{ notice?: string; error?: string }>
}) {
  const { session } = await authorize('tenant.read')
  const { notice, error } = await searchParams
  const manage = roleAllows(session.role, 'members.manage')
  const db = container().database.db
  const [members, invitations] = await Promise.all([
    listMembers(db, { tenantId: session.tenantId }),
    manage ? listOpenInvitations(db, { tenantId: session.tenantId }) : Promise.resolve([]),
  ])
  return (
    <>
      <div className="page-header">
        <h1>Members</h1>
      </div>
      {notice && NOTICES[notice] ? (
        <p className="notice" role="status">
          {NOTICES[notice]}
        </p>
      ) : null}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      {manage ? (
        <section className="card" aria-labelledby="invite-heading">
          <h2 id="invite-heading">Invite someone</h2>
          <InviteForm roles={MEMBERSHIP_ROLES.filter((role) => canAssignRole(session.role, role))} />
        </section>
      ) : null}
      <DataTable
        label="Members"
        columns={memberColumns(session, manage)}
        rows={members}
        rowKey={(m) => m.userId}
        empty={<p>No members.</p>}
      />
      {manage ? (
        <>
          <h2>Open invitations</h2>
          <DataTable
            label="Open invitations"
            columns={INVITATION_COLUMNS}
            rows={invitations}
            rowKey={(i) => i.id}
            empty={<p>No open invitations.</p>}
          />
        </>
      ) : null}
      <section className="card" aria-labelledby="leave-heading">
        <h2 id="leave-heading">Leave {session.tenantName}</h2>
        <p>You will lose access to this tenant. The last owner cannot leave.</p>
        <form action={leaveTenantAction}>
          <button type="submit" className="button-secondary">
            Leave tenant
          </button>
        </form>
      </section>
    </>
  )
}
