const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Checked before querying: PostgreSQL would answer a malformed uuid with an error, not "no row". */
export function isUuid(value: string): boolean {
  return UUID.test(value)
}
