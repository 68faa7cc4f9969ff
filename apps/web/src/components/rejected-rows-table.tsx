import { type DataColumn, DataTable } from './data-table'

/** A CSV row an import refused: its line in the file, the address if one was read, and why. */
export interface RejectedRow {
  line: number
  email?: string | null | undefined
  reason: string
}

const REJECTED_COLUMNS: DataColumn<RejectedRow>[] = [
  { header: 'Line', cell: (row) => row.line },
  { header: 'Email', cell: (row) => row.email ?? <span className="muted">—</span> },
  { header: 'Reason', cell: (row) => row.reason },
]

/** The first `limit` refused rows of an import (contacts, suppressions), as a table. */
export function RejectedRowsTable({ rows, limit }: { rows: readonly RejectedRow[]; limit: number }) {
  return (
    <DataTable
      label="Rows not imported"
      columns={REJECTED_COLUMNS}
      rows={rows.slice(0, limit)}
      rowKey={(row) => row.line}
    />
  )
}
