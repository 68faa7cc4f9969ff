/** In-memory fakes of the dead-letter ports, for the use cases' unit tests. */
import type { Lane } from '../domain/lanes'
import type { MessageStatus } from '../domain/statuses'
import { AppError } from '../errors/app-error'
import type {
  DeadLetterActionDeps,
  DeadLetterAuditEntry,
  DeadLetterReading,
  DeadLetterTransaction,
} from './ports'

export interface Message {
  lane: Lane
  status: MessageStatus
  generation: number
  bodyRemovedAt?: Date
}

/**
 * The messages, outbox and audit log in memory, written through a transaction that is copied in and
 * kept only when its work resolves, as PostgreSQL's commit and rollback would; the dead-letter queue
 * beside them, whose removal can be made to fail.
 */
export function memoryWorld(input: {
  messages?: Record<string, Message>
  deadLetters?: Record<string, DeadLetterReading>
  removeFails?: boolean
}) {
  const state = {
    messages: new Map(Object.entries(input.messages ?? {})),
    published: [] as Array<{ messageId: string; lane: Lane; generation: number }>,
    audit: [] as DeadLetterAuditEntry[],
  }
  const deadLetters = new Map(Object.entries(input.deadLetters ?? {}))
  const warnings: string[] = []
  const key = (tenantId: string, messageId: string) => `${tenantId}/${messageId}`
  const deps: DeadLetterActionDeps = {
    queue: {
      async find(id) {
        const read = deadLetters.get(id)
        if (!read) throw new AppError('not_found', `No dead letter with id ${JSON.stringify(id)}`)
        return {
          id,
          read,
          async remove() {
            if (input.removeFails) throw new Error('Redis did not answer')
            deadLetters.delete(id)
          },
        }
      },
    },
    store: {
      async transaction(work) {
        const draft = {
          messages: new Map([...state.messages].map(([id, message]) => [id, { ...message }])),
          published: [...state.published],
          audit: [...state.audit],
        }
        const tx: DeadLetterTransaction = {
          findMessageLane: async ({ tenantId, messageId }) =>
            draft.messages.get(key(tenantId, messageId))?.lane ?? null,
          async requeueFailed({ tenantId, messageId }) {
            const message = draft.messages.get(key(tenantId, messageId))
            if (!message) return { kind: 'not-found' }
            if (message.status !== 'failed') return { kind: 'not-failed', status: message.status }
            if (message.bodyRemovedAt) return { kind: 'body-removed', removedAt: message.bodyRemovedAt }
            message.status = 'queued'
            message.generation += 1
            return { kind: 'requeued', lane: message.lane, generation: message.generation }
          },
          async publish({ messageId, lane, generation }) {
            draft.published.push({ messageId, lane, generation })
          },
          async audit(entry) {
            draft.audit.push(entry)
          },
        }
        const result = await work(tx)
        Object.assign(state, draft)
        return result
      },
    },
    clock: { now: () => new Date('2026-05-01T10:00:00Z') },
    logger: { info: () => {}, warn: (_, message) => warnings.push(message) },
  }
  return { deps, state, deadLetters, warnings, key }
}

export const payload = (messageId: string, queue: Lane = 'bulk'): DeadLetterReading => ({
  ok: true,
  payload: { queue, messageId, tenantId: 't1' },
})
export const action = (id: string) => ({ id, actor: 'admin@example.com', reason: 'smtp fixed' })
