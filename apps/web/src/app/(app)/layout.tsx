import Link from 'next/link'
import type { ReactNode } from 'react'
import { SectionNav } from '@/components/section-nav'
import { requireTenantSession } from '@/server/auth/session'
import { signOutAction } from './actions'

/**
 * The signed-in shell. The session check here sends anonymous visitors to /sign-in; each page and
 * action still reads its tenant from requireTenantSession itself, since layouts are not re-run on
 * every navigation and actions can be called directly.
 */
export default async function AppLayout({ children }: { children: ReactNode }) {
  const session = await requireTenantSession()
  return (
    <>
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="app-header">
        <div className="app-header-inner">
          <div>
            <Link href="/dashboard" className="brand">
              Fairlane
            </Link>{' '}
            <span className="tenant-name" data-testid="tenant-name">
              {session.tenantName}
            </span>
          </div>
          <div className="account">
            <span>
              {session.name} <span className="visually-hidden">({session.email})</span>
            </span>
            <form action={signOutAction}>
              <button type="submit" className="button-secondary">
                Sign out
              </button>
            </form>
          </div>
        </div>
        <nav className="app-nav" aria-label="Main">
          <SectionNav links={APP_SECTIONS} />
        </nav>
      </header>
      <main id="main" className="app-main" tabIndex={-1}>
        {children}
      </main>
    </>
  )
}

/** The tenant app's sections. */
const APP_SECTIONS = [
  { href: '/dashboard', label: 'Dashboard' },
  { href: '/contacts', label: 'Contacts' },
  { href: '/lists', label: 'Lists' },
  { href: '/campaigns', label: 'Campaigns' },
  { href: '/messages', label: 'Messages' },
  { href: '/api-keys', label: 'API keys' },
] as const
