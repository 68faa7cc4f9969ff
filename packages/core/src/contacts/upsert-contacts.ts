import { parseContactsRequest } from './parse-contacts-request'
import type { ContactUpserter, UpsertCounts } from './ports'

/** `POST /api/v1/contacts`: validate the whole body first (a 400 writes nothing), then upsert by email. */
export async function upsertContacts(
  input: { tenantId: string; body: unknown },
  deps: { store: ContactUpserter },
): Promise<UpsertCounts> {
  const contacts = parseContactsRequest(input.body)
  return deps.store.upsertContacts({ tenantId: input.tenantId, contacts })
}
