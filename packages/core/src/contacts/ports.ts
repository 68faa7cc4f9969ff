import type { ContactFields } from './contact-rules'

export interface UpsertCounts {
  created: number
  updated: number
}

/** Writes contacts by (tenant, email): new emails are created, known ones get the given name and attributes. */
export interface ContactUpserter {
  upsertContacts(input: { tenantId: string; contacts: readonly ContactFields[] }): Promise<UpsertCounts>
}

/** Adds contacts of the tenant to one of its lists by email; null when the list is not the tenant's. */
export interface ListAdder {
  addToList(input: {
    tenantId: string
    listId: string
    emails: readonly string[]
  }): Promise<{ added: number } | null>
}
