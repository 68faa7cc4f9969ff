/** The mail sink's HTTP API (CONTRACT.md, "Mail sink"), as the benchmarks use it. */

export interface SinkReceipt {
  messageId: string | null
  to: string
  receivedAt: string
}

export interface SinkClient {
  /** Messages the sink holds now (its /health answer): cheap enough to poll every few hundred ms. */
  count(): Promise<number>
  /** Every message it holds, without bodies (`?fields=`), oldest first. */
  receipts(): Promise<SinkReceipt[]>
  clear(): Promise<void>
  /**
   * Until `clearFaults`, mail to `match` (an address or `@domain`) is answered with `reply`, after
   * `delayMs`; without `reply`, accepted after `delayMs`.
   */
  addFault(fault: { match: string; reply?: string; times?: number; delayMs?: number }): Promise<void>
  clearFaults(): Promise<void>
}

export function sinkClient(inboxUrl: string): SinkClient {
  const call = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${inboxUrl}${path}`, { ...init, signal: AbortSignal.timeout(60_000) })
    if (!response.ok) throw new Error(`sink ${init.method ?? 'GET'} ${path}: ${response.status}`)
    return response.json() as Promise<unknown>
  }
  return {
    async count() {
      return ((await call('/health')) as { messages: number }).messages
    },
    async receipts() {
      return (await call('/messages?fields=messageId,to,receivedAt')) as SinkReceipt[]
    },
    async clear() {
      await call('/messages', { method: 'DELETE' })
    },
    async addFault(fault) {
      await call('/faults', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(fault),
      })
    },
    async clearFaults() {
      await call('/faults', { method: 'DELETE' })
    },
  }
}

/**
 * Receipts per Message-ID: the distinct ones, and `duplicates`, the receipts beyond the first of each
 * (a message that arrived three times counts 2), with the Message-IDs concerned in `repeatedIds`.
 */
export function countByMessageId(receipts: SinkReceipt[]): {
  distinct: Set<string>
  duplicates: number
  repeatedIds: string[]
  withoutId: number
} {
  const seen = new Map<string, number>()
  let withoutId = 0
  for (const receipt of receipts) {
    if (!receipt.messageId) {
      withoutId += 1
      continue
    }
    seen.set(receipt.messageId, (seen.get(receipt.messageId) ?? 0) + 1)
  }
  const repeated = [...seen].filter(([, n]) => n > 1)
  return {
    distinct: new Set(seen.keys()),
    duplicates: repeated.reduce((sum, [, n]) => sum + n - 1, 0),
    repeatedIds: repeated.map(([id]) => id),
    withoutId,
  }
}

/**
 * Polls the sink until it holds `expected` mails, logging progress every 5 s; fails when the count has
 * not moved for 60 s (a stalled run, not a slow one).
 */
export async function waitForSink(
  sink: SinkClient,
  expected: number,
  log: (line: string) => void,
): Promise<void> {
  let last = 0
  let lastChange = Date.now()
  let lastLog = 0
  for (;;) {
    const count = await sink.count()
    if (count >= expected) return
    if (count !== last) {
      last = count
      lastChange = Date.now()
    } else if (Date.now() - lastChange > 60_000) {
      throw new Error(`no delivery for 60 s: the sink holds ${count} of ${expected}`)
    }
    if (Date.now() - lastLog > 5_000) {
      log(`${count} of ${expected} at the sink`)
      lastLog = Date.now()
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}
