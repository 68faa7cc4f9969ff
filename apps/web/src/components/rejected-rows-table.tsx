/** A CSV row an import refused: its line in the file, the address if one was read, and why. */
export interface RejectedRow {
  line: number
  email?: string | null | undefined
  reason: string
}

/** The first `limit` refused rows of an import (contacts, suppressions), as a table. */
export function RejectedRowsTable({ rows, limit }: { rows: readonly RejectedRow[]; limit: number }) {
  return (
    <div className="table-wrap">
      <table className="table" aria-label="Rows not imported">
        <thead>
          <tr>
            <th scope="col">Line</th>
            <th scope="col">Email</th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {rows.slice(0, limit).map((row) => (
            <tr key={row.line}>
              <td>{row.line}</td>
              <td>{row.email ?? <span className="muted">—</span>}</td>
              <td>{row.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
