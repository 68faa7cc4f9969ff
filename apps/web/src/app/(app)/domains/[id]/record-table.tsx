import type { DomainRecordView } from '@fairlane/core'
import { CopyButton } from '@/components/copy-button'
import { DateTime } from '@/components/date-time'
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
    <div className="table-wrap">
      <table className={`table ${styles.records}`}>
        <caption className="visually-hidden">DNS records to publish</caption>
        <thead>
          <tr>
            <th scope="col">Record</th>
            <th scope="col" className={styles.nowrap}>
              Type
            </th>
            <th scope="col">Host name</th>
            <th scope="col">Value</th>
            <th scope="col">Status</th>
            <th scope="col" className={styles.nowrap}>
              Needed
            </th>
          </tr>
        </thead>
        <tbody>
          {records.map((record) => (
            <RecordRow key={`${record.purpose}-${record.type}-${record.name}`} record={record} />
          ))}
        </tbody>
      </table>
    </div>
  )
}

function RecordRow({ record }: { record: DomainRecordView }) {
  const title = recordTitle(record)
  return (
    <tr data-testid={`record-${record.purpose}`} data-selector={record.selector}>
      <th scope="row">{title}</th>
      <td className={styles.nowrap}>{record.type}</td>
      <td className={styles.copyable}>
        <code data-testid="record-name">{record.name}</code>
        <CopyButton text={record.name} ariaLabel={`Copy host name of ${title}`} />
      </td>
      <td className={styles.copyable}>
        <code data-testid="record-value">{record.value}</code>
        <CopyButton text={record.value} ariaLabel={`Copy value of ${title}`} />
      </td>
      <td>
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
            Can be removed after <DateTime value={record.removableAfter} />
          </p>
        ) : null}
      </td>
      <td className={styles.nowrap}>{record.required ? 'Required' : 'Advice'}</td>
    </tr>
  )
}
