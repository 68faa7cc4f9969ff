import type { ReleasedBatch, ReleasedMessage } from './ports'

/** A released row with the provider the pacer released it for, in the plan's order. */
export interface ReleasedForProvider {
  message: ReleasedMessage
  provider: string
}

/**
 * MX mode's jobs: each (tenant, provider) pair's released rows in batches of at most `batchSize`,
 * so a batch asks one provider's budget once and its mail goes to one provider's hosts. As in relay
 * mode (`inPlanBatches`), a pair's k-th row belongs to its batch ⌊k / batchSize⌋ and each batch takes
 * the place of its first row in the plan: the pairs stay interleaved at batch granularity, and a
 * batch is never waited for (a pair released 3 rows gets a job of 3 now).
 */
export function inProviderBatches(
  released: readonly ReleasedForProvider[],
  batchSize: number,
): ReleasedBatch[] {
  if (!(Number.isInteger(batchSize) && batchSize >= 1)) {
    throw new RangeError(`batchSize must be a whole number of at least 1, got ${batchSize}`)
  }
  const batches: ReleasedBatch[] = []
  const open = new Map<string, ReleasedBatch>()
  for (const { message, provider } of released) {
    const key = `${message.tenantId}\u0000${provider}`
    let batch = open.get(key)
    if (!batch || batch.messages.length >= batchSize) {
      batch = { tenantId: message.tenantId, messages: [] }
      open.set(key, batch)
      batches.push(batch)
    }
    batch.messages.push(message)
  }
  return batches
}
