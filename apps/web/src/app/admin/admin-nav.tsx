'use client'

import Link from 'next/link'
import { usePathname } from 'next/navigation'

const LINKS = [
  { href: '/admin', label: 'Overview' },
  { href: '/admin/dead-letters', label: 'Dead letters' },
  { href: '/admin/tenants', label: 'Tenants' },
  { href: '/admin/fairness', label: 'Fairness' },
] as const

/** The console's four sections; the current one carries aria-current. */
export function AdminNav() {
  const pathname = usePathname()
  return (
    <ul>
      {LINKS.map((link) => {
        const current =
          link.href === '/admin'
            ? pathname === '/admin'
            : pathname === link.href || pathname.startsWith(`${link.href}/`)
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
