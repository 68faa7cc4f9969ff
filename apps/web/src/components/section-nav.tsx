'use client'

import Link from 'next/link'
import { usePathname } from 'next/navigation'

export interface SectionLink {
  href: string
  label: string
  /** Current only on this very path, not on the pages below it (a section's overview at its root). */
  exact?: boolean
}

/** A layout's sections; the current one (or the one a sub-page belongs to) carries aria-current. */
export function SectionNav({ links }: { links: readonly SectionLink[] }) {
  const pathname = usePathname()
  return (
    <ul>
      {links.map((link) => {
        const current = pathname === link.href || (!link.exact && pathname.startsWith(`${link.href}/`))
        return (
          <li key={link.href}>
            <Link href={link.href} aria-current={current ? 'page' : undefined}>
              {link.label}
            </Link>
          </li>
        )
      })}
    </ul>
  )
}
