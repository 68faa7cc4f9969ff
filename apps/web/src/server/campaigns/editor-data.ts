import 'server-only'
import { audienceLists, previewContacts } from '@fairlane/db/queries/audience'
import { listSegments } from '@fairlane/db/queries/segments'
import { findDefaultSender, listVerifiedDomainNames } from '@fairlane/db/queries/senders'
import { container } from '../container'
import { selectableTimeZones } from '../time-zones'

/**
 * What the editor offers: the tenant's lists and segments, a few contacts to preview for, the zones,
 * and for the From field its verified domains and default sender.
 */
export async function loadEditorData(tenantId: string) {
  const { db } = container().database
  const [lists, segments, contacts, verifiedDomains, defaultSender] = await Promise.all([
    audienceLists(db, { tenantId }),
    listSegments(db, { tenantId }),
    previewContacts(db, { tenantId, limit: 50 }),
    listVerifiedDomainNames(db, { tenantId }),
    findDefaultSender(db, { tenantId }),
  ])
  return {
    verifiedDomains,
    defaultFrom: defaultSender.from,
    lists,
    segments: segments.map(({ id, name }) => ({ id, name })),
    contacts: contacts.map(({ id, email, name }) => ({ id, email, name })),
    zones: selectableTimeZones(),
  }
}
