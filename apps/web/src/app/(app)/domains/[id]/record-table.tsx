import type { DomainRecordView } from '@fairlane/core'
import { CopyButton } from '@/components/copy-button'
import { type DataColumn, DataTable } from '@/components/data-table'
import { LocalTime } from '@/components/local-time'
import { StatusBadge } from '@/components/status-badge'
import styles from '../domains.module.css'

const PURPOSES: Record<DomainRecordView['purpose'], string> = {
  dkim: 'DKIM key',
  'return-path': 'Return path',
  spf: 'SPF',
  dmarc: 'DMARC',
  ownership: 'Ownership',
}

/** What a record is for, in the words of its row and of its copy buttons' labels. */
export function recordTitle(record: DomainRecordView): string {
  const purpose = PURPOSES[record.purpose]
  return record.selector ? `${purpose} ${record.selector}` : purpose
}

/**
 * The records to publish, each name and value with a copy button. A failed record says what the
 * lookup found instead; SPF and DMARC are advice (the domain verifies without them).
 */
export function RecordTable({ records }: { records: DomainRecordView[] }) {
  return (
    <DataTable
      caption="DNS records to publish"
      className={styles.records}
      columns={RECORD_COLUMNS}
      rows={records}
      rowKey={(record) => `${record.purpose}-${record.type}-${record.name}`}
      rowData={(record) => ({ 'data-testid': `record-${record.purpose}`, 'data-selector': record.selector })}
    />
  )
}

const RECORD_COLUMNS: DataColumn<DomainRecordView>[] = [
  { header: 'Record', rowHeader: true, cell: recordTitle },
  { header: 'Type', className: styles.nowrap, headerClassName: styles.nowrap, cell: (record) => record.type },
  {
    header: 'Host name',
    className: styles.copyable,
    cell: (record) => (
      <>
        <code data-testid="record-name">{record.name}</code>
        <CopyButton text={record.name} ariaLabel={`Copy host name of ${recordTitle(record)}`} />
      </>
    ),
  },
  {
    header: 'Value',
    className: styles.copyable,
    cell: (record) => (
      <>
        <code data-testid="record-value">{record.value}</code>
        <CopyButton text={record.value} ariaLabel={`Copy value of ${recordTitle(record)}`} />
      </>
    ),
  },
  { header: 'Status', cell: (record) => <RecordStatus record={record} /> },
  {
    header: 'Needed',
    className: styles.nowrap,
    headerClassName: styles.nowrap,
    cell: (record) => (record.required ? 'Required' : 'Advice'),
  },
]

function RecordStatus({ record }: { record: DomainRecordView }) {
  return (
    <>
      <span data-testid="record-status">
        <StatusBadge status={record.status} />
      </span>
      {record.status === 'failed' && record.found !== undefined ? (
        <p className={styles.found}>
          Found: <code>{record.found}</code>
        </p>
      ) : null}
      {record.reason && record.status !== 'verified' ? (
        <p className={`${styles.found} muted`} data-testid="record-reason">
          {record.reason}
        </p>
      ) : null}
      {record.removableAfter ? (
        <p className={`${styles.found} muted`} data-testid="record-removable">
          Can be removed after <LocalTime value={record.removableAfter} />
        </p>
      ) : null}
    </>
  )
}
