import type { DomainStatus } from '@fairlane/core'
import type { Sql } from 'postgres'

/**
 * A sending domain row made straight in the database, in the status a test needs: what sender
 * resolution reads (tenant, name, status), with an empty DKIM rotation state. The real verification
 * (DNS records, keys) is the domains code's and tested there.
 */
export async function insertSendingDomain(
  sql: Sql,
  input: { tenantId: string; name: string; status: DomainStatus },
): Promise<{ id: string }> {
  const dkim = { active: null, pending: null, retired: [], activeFailedChecks: 0 }
  const [row] = await sql<{ id: string }[]>`
    insert into sending_domains (tenant_id, name, status, return_path_label, dkim, verified_at)
    values (${input.tenantId}, ${input.name}, ${input.status}, 'fl-bounces', ${JSON.stringify(dkim)}::jsonb,
      ${input.status === 'verified' ? new Date().toISOString() : null}::timestamptz)
    returning id`
  if (!row) throw new Error('insert into sending_domains returned no row')
  return row
}
