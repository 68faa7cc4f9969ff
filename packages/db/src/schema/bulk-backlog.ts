import { sql } from 'drizzle-orm'
import { bigint, customType, index, pgSequence, pgTable, primaryKey } from 'drizzle-orm/pg-core'
import { createdAt } from './columns'
import { tenantId } from './tenant-column'

/** A transaction id as PostgreSQL's `pg_current_xact_id()` gives it (64 bits, as a string). */
const xid8 = customType<{ data: string; driverData: string }>({ dataType: () => 'xid8' })

/** Stamps each change of `bulk_backlog_tenants`: the pacer reads the rows stamped after its last read. */
export const bulkBacklogSeq = pgSequence('bulk_backlog_seq')

/**
 * The tenants with pending bulk mail (the bulk pacer's active set), kept by the triggers on
 * `messages` of migration 0028: every statement that makes a row pending in the bulk lane adds its
 * tenant here, or stamps its row again with a fresh `seq`. The pacer's leader reads only the rows
 * stamped since its last tick, and deletes a tenant once a claim finds it empty — in one statement
 * that checks both that no pending row is left and that the row's `seq` is still the one it read, so
 * a dispatch adding rows at that moment (which stamps the row, holding its lock until it commits)
 * keeps the tenant in. A superset is harmless (a claim finds the tenant empty and it leaves); a
 * missing tenant would never be sent, which is why the triggers, not the writers, keep it.
 */
export const bulkBacklogTenants = pgTable(
  'bulk_backlog_tenants',
  {
    tenantId: tenantId(),
    seq: bigint('seq', { mode: 'number' }).notNull().default(sql`nextval('bulk_backlog_seq')`),
    /**
     * The transaction that stamped the row last. Besides the rows stamped with a higher seq than it
     * saw, the pacer reads the rows stamped by the transactions that were still open at its previous
     * read: a `seq > last seen` read alone would miss a stamp whose transaction committed after a
     * later one's.
     */
    changedXid: xid8('changed_xid').notNull().default(sql`pg_current_xact_id()`),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'bulk_backlog_tenants_pk', columns: [t.tenantId] }),
    index('bulk_backlog_tenants_seq_idx').on(t.seq),
    index('bulk_backlog_tenants_changed_xid_idx').on(t.changedXid),
  ],
)
