import Link from 'next/link'
import type { ReactNode } from 'react'
import { AppShell } from '@/components/app-shell'
import { StandingBanner } from '@/components/standing-banner'
import { requireTenantSession } from '@/server/auth/session'

/**
 * The signed-in shell. The session check here sends anonymous visitors to /sign-in; each page and
 * action still reads its tenant from requireTenantSession itself, since layouts are not re-run on
 * every navigation and actions can be called directly.
 */
export default async function AppLayout({ children }: { children: ReactNode }) {
  const session = await requireTenantSession()
  return (
    <AppShell
      homeHref="/dashboard"
      place={
        <span className="tenant-name" data-testid="tenant-name">
          {session.tenantName}
        </span>
      }
      account={
        <Link href="/account" data-testid="account-link">
          {session.name} <span className="visually-hidden">({session.email}), your account</span>
        </Link>
      }
      navLabel="Main"
      sections={APP_SECTIONS}
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

/** The tenant app's sections. */
const APP_SECTIONS = [
  { href: '/dashboard', label: 'Dashboard' },
  { href: '/contacts', label: 'Contacts' },
  { href: '/lists', label: 'Lists' },
  { href: '/segments', label: 'Segments' },
  { href: '/suppressions', label: 'Suppressions' },
  { href: '/campaigns', label: 'Campaigns' },
  { href: '/templates', label: 'Templates' },
  { href: '/messages', label: 'Messages' },
  { href: '/domains', label: 'Domains' },
  { href: '/webhooks', label: 'Webhooks' },
  { href: '/api-keys', label: 'API keys' },
  { href: '/audit', label: 'Audit log' },
  { href: '/settings', label: 'Settings' },
] as const
