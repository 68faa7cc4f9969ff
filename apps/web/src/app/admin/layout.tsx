import type { Metadata } from 'next'
import type { ReactNode } from 'react'
import { AppShell } from '@/components/app-shell'
import { requirePlatformAdmin } from '@/server/auth/session'

export const metadata: Metadata = { title: { template: '%s · Fairlane admin', default: 'Fairlane admin' } }

/**
 * The admin console's shell: platform admins only (nobody signed in → /sign-in, a tenant user → 403).
 * Each page checks again, since layouts are not re-run on every navigation.
 */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const admin = await requirePlatformAdmin()
  return (
    <AppShell
      homeHref="/admin"
      place={
        <span className="tenant-name" data-testid="admin-console">
          Admin console
        </span>
      }
      account={<span data-testid="admin-email">{admin.email}</span>}
      navLabel="Admin"
      sections={ADMIN_SECTIONS}
    >
      {children}
    </AppShell>
  )
}

/** The console's sections. */
const ADMIN_SECTIONS = [
  { href: '/admin', label: 'Overview', exact: true },
  { href: '/admin/dead-letters', label: 'Dead letters' },
  { href: '/admin/tenants', label: 'Tenants' },
  { href: '/admin/fairness', label: 'Fairness' },
  { href: '/admin/receivers', label: 'Receivers' },
] as const
