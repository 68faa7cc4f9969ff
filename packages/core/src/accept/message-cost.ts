/** The bytes one plan token pays for: every message costs at least one token, a large one more. */
export const COST_UNIT_BYTES = 256 * 1024

/**
 * How many plan tokens a message of `sizeBytes` (body and attachments, decoded: `messages.size_bytes`)
 * costs: one per started 256 KB. A login code or a receipt costs 1, a 1 MB invoice 4, a message at
 * MAX_MESSAGE_BYTES (10 MB) 40 — so a tenant sending large mail cannot pass ten megabytes through its
 * plan for the price of a few hundred bytes. Unknown or invalid sizes (rows older than the column,
 * campaign mail) cost 1.
 */
export function messageCost(sizeBytes: number | null | undefined): number {
  if (sizeBytes === null || sizeBytes === undefined || !Number.isFinite(sizeBytes) || sizeBytes <= 0) return 1
  return Math.ceil(sizeBytes / COST_UNIT_BYTES)
}
