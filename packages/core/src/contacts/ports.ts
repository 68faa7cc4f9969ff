import type { ContactFields } from './contact-rules'

export interface UpsertCounts {
  created: number
  updated: number
}

/** Writes contacts by (tenant, email): new emails are created, known ones get the given name and attributes. */
export interface ContactUpserter {
  upsertContacts(input: { tenantId: string; contacts: readonly ContactFields[] }): Promise<UpsertCounts>
}
