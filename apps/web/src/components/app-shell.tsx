import Link from 'next/link'
import type { ReactNode } from 'react'
import { signOutAction } from '@/app/(app)/actions'
import { ReaderTimeZoneReport } from './reader-time-zone-report'
import { type SectionLink, SectionNav } from './section-nav'

/**
 * The signed-in page frame shared by the tenant app and the admin console: skip link, brand with
 * whose space this is, the account with sign-out, the section nav, and the main landmark; and the
 * browser's zone reported for the times on every page (ReaderTimeZoneReport).
 */
export function AppShell(props: {
  homeHref: string
  /** Next to the brand: the tenant's name, or "Admin console". */
  place: ReactNode
  account: ReactNode
  navLabel: string
  sections: readonly SectionLink[]
  children: ReactNode
}) {
  return (
    <>
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="app-header">
        <div className="app-header-inner">
          <div>
            <Link href={props.homeHref} className="brand">
              Fairlane
            </Link>{' '}
            {props.place}
          </div>
          <div className="account">
            {props.account}
            <form action={signOutAction}>
              <button type="submit" className="button-secondary">
                Sign out
              </button>
            </form>
          </div>
        </div>
        <nav className="app-nav" aria-label={props.navLabel}>
          <SectionNav links={props.sections} />
        </nav>
      </header>
      <main id="main" className="app-main" tabIndex={-1}>
        {props.children}
      </main>
      <ReaderTimeZoneReport />
    </>
  )
}
