import type { MembershipRole } from '@fairlane/core'
import { switchTenantAction } from './actions'

/**
 * The header's tenant: its name, and for a user in several tenants a plain form to act for another
 * (works without JavaScript; the server checks the membership again).
 */
export function TenantSwitcher(props: {
  current: { tenantId: string; tenantName: string; role: MembershipRole }
  tenants: ReadonlyArray<{ tenantId: string; tenantName: string; role: MembershipRole }>
}) {
  const { current, tenants } = props
  return (
    <span className="tenant-switcher">
      <span className="tenant-name" data-testid="tenant-name">
        {current.tenantName}
      </span>{' '}
      <span className="muted">({current.role})</span>
      {tenants.length > 1 ? (
        <form action={switchTenantAction} className="inline-form" data-testid="tenant-switcher">
          <label className="visually-hidden" htmlFor="tenant-switch">
            Switch tenant
          </label>
          <select id="tenant-switch" name="tenantId" defaultValue={current.tenantId}>
            {tenants.map((tenant) => (
              <option key={tenant.tenantId} value={tenant.tenantId}>
                {tenant.tenantName} ({tenant.role})
              </option>
            ))}
          </select>{' '}
          <button type="submit" className="button-secondary">
            Switch
          </button>
        </form>
      ) : null}
    </span>
  )
}
