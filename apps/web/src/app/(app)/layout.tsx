import { type Permission, roleAllows } from '@fairlane/core'
import { listUserTenants } from '@fairlane/db/queries/team'
import Link from 'next/link'
import type { ReactNode } from 'react'
import { AppShell } from '@/components/app-shell'
import { StandingBanner } from '@/components/standing-banner'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import { TenantSwitcher } from './tenant-switcher'

/**
 * The signed-in shell. The session check here sends anonymous visitors to /sign-in; each page and
 * action still checks its own permission (`authorize`), since layouts are not re-run on every
 * navigation and actions can be called directly. The nav shows only the sections the role may open.
 */
export default async function AppLayout({ children }: { children: ReactNode }) {
  const session = await requireTenantSession()
  const tenants = await listUserTenants(container().database.db, { userId: session.userId })
  return (
    <AppShell
      homeHref="/dashboard"
      place={<TenantSwitcher current={session} tenants={tenants} />}
      account={
        <Link href="/account" data-testid="account-link">
          {session.name} <span className="visually-hidden">({session.email}), your account</span>
        </Link>
      }
      navLabel="Main"
      sections={APP_SECTIONS.filter((section) => roleAllows(session.role, section.permission))}
    >
      <StandingBanner
        email={session.email}
        emailVerified={session.emailVerified}
        tenantApproved={session.tenantApproved}
      />
      {children}
    </AppShell>
  )
}

/** The tenant app's sections, each with the permission its page asks (`authorize`). */
const APP_SECTIONS: ReadonlyArray<{ href: string; label: string; permission: Permission }> = [
  { href: '/dashboard', label: 'Dashboard', permission: 'tenant.read' },
  { href: '/contacts', label: 'Contacts', permission: 'contacts.manage' },
  { href: '/lists', label: 'Lists', permission: 'contacts.manage' },
  { href: '/segments', label: 'Segments', permission: 'contacts.manage' },
  { href: '/suppressions', label: 'Suppressions', permission: 'tenant.read' },
  { href: '/campaigns', label: 'Campaigns', permission: 'campaigns.manage' },
  { href: '/templates', label: 'Templates', permission: 'templates.manage' },
  { href: '/messages', label: 'Messages', permission: 'tenant.read' },
  { href: '/members', label: 'Members', permission: 'tenant.read' },
  { href: '/domains', label: 'Domains', permission: 'domains.manage' },
  { href: '/webhooks', label: 'Webhooks', permission: 'webhooks.manage' },
  { href: '/api-keys', label: 'API keys', permission: 'apiKeys.manage' },
  { href: '/audit', label: 'Audit log', permission: 'audit.read' },
  { href: '/settings', label: 'Settings', permission: 'settings.manage' },
]
