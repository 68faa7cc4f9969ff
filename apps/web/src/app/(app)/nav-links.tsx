'use client'

import Link from 'next/link'
import { usePathname } from 'next/navigation'

const LINKS = [
  { href: '/dashboard', label: 'Dashboard' },
  { href: '/contacts', label: 'Contacts' },
  { href: '/lists', label: 'Lists' },
  { href: '/campaigns', label: 'Campaigns' },
  { href: '/messages', label: 'Messages' },
  { href: '/api-keys', label: 'API keys' },
] as const

/** The app's sections; the current one (or the one a sub-page belongs to) carries aria-current. */
export function NavLinks() {
  const pathname = usePathname()
  return (
    <ul>
      {LINKS.map((link) => {
        const current = pathname === link.href || pathname.startsWith(`${link.href}/`)
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
