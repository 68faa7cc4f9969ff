import { CSV_BATCH_ROWS, MAX_CSV_BYTES } from '@fairlane/core'
import { listLists } from '@fairlane/db/queries/lists'
import type { Metadata } from 'next'
import Link from 'next/link'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import { CsvImport } from './csv-import'
import styles from './import.module.css'

export const metadata: Metadata = { title: 'Import contacts' }

export default async function ImportContactsPage() {
  const session = await requireTenantSession()
  const lists = await listLists(container().database.db, { tenantId: session.tenantId })
  return (
    <div className={styles.page}>
      <div className="page-header">
        <h1>Import contacts from CSV</h1>
        <Link href="/contacts">Back to contacts</Link>
      </div>
      <p>
        Contacts are matched by email: new addresses are added, known ones get the name and attributes from
        the file (an unsubscribed contact stays unsubscribed). Every row that cannot be imported is listed
        with its line and the reason.
      </p>
      <noscript>
        <p className="form-error">
          The import reads the file in your browser and needs JavaScript. Without it, add contacts one by one
          or send them to the API (POST /api/v1/contacts).
        </p>
      </noscript>
      <CsvImport
        maxBytes={MAX_CSV_BYTES}
        batchRows={CSV_BATCH_ROWS}
        lists={lists.map((list) => ({ id: list.id, name: list.name }))}
      />
    </div>
  )
}
