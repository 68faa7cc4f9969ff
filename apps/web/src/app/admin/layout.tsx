import type { Metadata } from 'next'
import Link from 'next/link'
import type { ReactNode } from 'react'
import { SectionNav } from '@/components/section-nav'
import { requirePlatformAdmin } from '@/server/auth/session'
import { signOutAction } from '../(app)/actions'

export const metadata: Metadata = { title: { template: '%s · Fairlane admin', default: 'Fairlane admin' } }

/**
 * The admin console's shell: platform admins only (nobody signed in → /sign-in, a tenant user → 403).
 * Each page checks again, since layouts are not re-run on every navigation.
 */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const admin = await requirePlatformAdmin()
  return (
    <>
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="app-header">
        <div className="app-header-inner">
          <div>
            <Link href="/admin" className="brand">
              Fairlane
            </Link>{' '}
            <span className="tenant-name" data-testid="admin-console">
              Admin console
            </span>
          </div>
          <div className="account">
            <span data-testid="admin-email">{admin.email}</span>
            <form action={signOutAction}>
              <button type="submit" className="button-secondary">
                Sign out
              </button>
            </form>
          </div>
        </div>
        <nav className="app-nav" aria-label="Admin">
          <SectionNav links={ADMIN_SECTIONS} />
        </nav>
      </header>
      <main id="main" className="app-main" tabIndex={-1}>
        {children}
      </main>
    </>
  )
}

/** The console's four sections. */
const ADMIN_SECTIONS = [
  { href: '/admin', label: 'Overview', exact: true },
  { href: '/admin/dead-letters', label: 'Dead letters' },
  { href: '/admin/tenants', label: 'Tenants' },
  { href: '/admin/fairness', label: 'Fairness' },
] as const
