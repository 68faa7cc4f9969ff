import { Fragment, type ReactNode } from 'react'

/** One column: its header, what each row shows in it, and how its cells are marked. */
export interface DataColumn<Row> {
  header: ReactNode
  cell: (row: Row) => ReactNode
  /** A class on every cell of the column; a function sets it per row. */
  className?: string | ((row: Row) => string | undefined)
  /** A class on the column's header. */
  headerClassName?: string
  /** `end` right-aligns the column (numbers); the default is the start, like every table today. */
  align?: 'start' | 'end'
  /** The cell names its row (`<th scope="row">`), so a screen reader announces it with every cell. */
  rowHeader?: boolean
  /** `data-testid` on every cell of the column. */
  testId?: string
  /** A tooltip on every cell of the column. */
  title?: string
  /** The column the rows are sorted by, for `aria-sort` on its header. */
  sort?: 'ascending' | 'descending'
}

/** Every table is named, either visibly to assistive technology only (caption) or by `aria-label`. */
type TableName = { label: string; caption?: never } | { caption: string; label?: never }

export type DataTableProps<Row> = TableName & {
  columns: readonly DataColumn<Row>[]
  rows: readonly Row[]
  rowKey: (row: Row) => string | number
  /** Shown instead of the table when there are no rows; without it an empty table is shown. */
  empty?: ReactNode
  /** `data-*` attributes of a row, which tests and styles select rows by. */
  rowData?: (row: Row) => Record<`data-${string}`, string | undefined>
  /** A full-width row under a row (an inline editor), or nothing. */
  rowDetail?: (row: Row) => ReactNode
  /** More classes on the `.table-wrap` box (`card`) and on the `<table>`. */
  wrapClassName?: string
  className?: string
  testId?: string
}

const joinClasses = (...names: (string | undefined)[]) => names.filter(Boolean).join(' ') || undefined

function cellClass<Row>(column: DataColumn<Row>, row: Row): string | undefined {
  const own = typeof column.className === 'function' ? column.className(row) : column.className
  return joinClasses(own, column.align === 'end' ? 'align-end' : undefined)
}

/**
 * The one table of the tenant and admin pages: `.table` in a scrolling `.table-wrap`, headers with
 * `scope`, and an empty state in place of a table without rows.
 */
export function DataTable<Row>(props: DataTableProps<Row>) {
  const { columns, rows, rowKey, empty, rowData, rowDetail } = props
  if (rows.length === 0 && empty !== undefined) return <>{empty}</>
  return (
    <div className={joinClasses('table-wrap', props.wrapClassName)}>
      <table
        className={joinClasses('table', props.className)}
        aria-label={props.label}
        data-testid={props.testId}
      >
        {props.caption ? <caption className="visually-hidden">{props.caption}</caption> : null}
        <thead>
          <tr>
            {columns.map((column, index) => (
              <th
                // Columns are fixed per table, so their position is their identity.
                // biome-ignore lint/suspicious/noArrayIndexKey: see above
                key={index}
                scope="col"
                className={joinClasses(
                  column.headerClassName,
                  column.align === 'end' ? 'align-end' : undefined,
                )}
                aria-sort={column.sort}
              >
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const detail = rowDetail?.(row)
            return (
              <Fragment key={rowKey(row)}>
                <tr {...rowData?.(row)}>
                  {columns.map((column, index) => {
                    const Cell = column.rowHeader ? 'th' : 'td'
                    return (
                      <Cell
                        // biome-ignore lint/suspicious/noArrayIndexKey: columns are fixed per table
                        key={index}
                        scope={column.rowHeader ? 'row' : undefined}
                        className={cellClass(column, row)}
                        data-testid={column.testId}
                        title={column.title}
                      >
                        {column.cell(row)}
                      </Cell>
                    )
                  })}
                </tr>
                {detail ? (
                  <tr>
                    <td colSpan={columns.length}>{detail}</td>
                  </tr>
                ) : null}
              </Fragment>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}
