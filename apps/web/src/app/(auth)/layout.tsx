import Link from 'next/link'
import type { ReactNode } from 'react'

export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <header className="site-header">
        <Link href="/" className="brand">
          Fairlane
        </Link>
      </header>
      <main>
        <div className="card auth-card">{children}</div>
      </main>
    </>
  )
}
