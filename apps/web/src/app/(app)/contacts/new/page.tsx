import type { Metadata } from 'next'
import Link from 'next/link'
import { requireTenantSession } from '@/server/auth/session'
import { createContactAction } from '../actions'
import { ContactForm } from '../contact-form'

export const metadata: Metadata = { title: 'Add a contact' }

export default async function NewContactPage() {
  await requireTenantSession()
  return (
    <>
      <div className="page-header">
        <h1>Add a contact</h1>
        <Link href="/contacts">Back to contacts</Link>
      </div>
      <section className="card">
        <ContactForm
          action={createContactAction}
          initial={{ values: { email: '', name: '', attributes: '' }, errors: {} }}
          submitLabel="Add contact"
        />
      </section>
    </>
  )
}
