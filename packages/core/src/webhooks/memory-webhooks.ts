/** In-memory fakes of the webhook ports, for the use cases' unit tests. */
import { randomUUID } from 'node:crypto'
import type {
  HostAddressLookup,
  StoredWebhookAttempt,
  StoredWebhookDelivery,
  StoredWebhookEndpoint,
  WebhookDeliveryStore,
  WebhookEndpointStore,
} from './ports'

const sameTenant = (row: { tenantId: string }, query: { tenantId: string }) => row.tenantId === query.tenantId

/**
 * Endpoints, deliveries and attempts in maps, scoped by tenant as the SQL is; `notifications` counts
 * the relay wake-ups (NOTIFY) the delivery store sent. `now` is the clock the fakes stamp rows with.
 */
export function memoryWebhooks(now: () => Date) {
  const endpoints = new Map<string, StoredWebhookEndpoint>()
  const deliveries = new Map<string, StoredWebhookDelivery & { tenantId: string }>()
  const attempts = new Map<string, StoredWebhookAttempt[]>()
  const state = { endpoints, deliveries, attempts, notifications: 0 }

  const endpointStore: WebhookEndpointStore = {
    async insertEndpoint({ maxEndpoints, ...input }) {
      const owned = [...endpoints.values()].filter((row) => sameTenant(row, input)).length
      if (owned >= maxEndpoints) return null
      const row: StoredWebhookEndpoint = {
        ...input,
        id: randomUUID(),
        enabled: true,
        previousSecret: null,
        previousSecretExpiresAt: null,
        disabledReason: null,
        disabledAt: null,
        failingSince: null,
        lastSuccessAt: null,
        parkedUntil: null,
        createdAt: now(),
        updatedAt: now(),
      }
      endpoints.set(row.id, row)
      return { ...row }
    },
    async findEndpoint(query) {
      const row = endpoints.get(query.endpointId)
      return row && sameTenant(row, query) ? { ...row } : null
    },
    async listEndpoints(query) {
      return [...endpoints.values()].filter((row) => sameTenant(row, query)).map((row) => ({ ...row }))
    },
    async updateEndpoint(query, change) {
      const row = endpoints.get(query.endpointId)
      if (!row || !sameTenant(row, query)) return null
      const changed = change({ ...row })
      if (changed === null) return { ...row }
      const { parkLevel: _parkLevel, ...columns } = changed
      const next = { ...row, ...columns, updatedAt: now() }
      endpoints.set(row.id, next)
      return { ...next }
    },
    async deleteEndpoint(query) {
      const row = endpoints.get(query.endpointId)
      if (!row || !sameTenant(row, query)) return false
      endpoints.delete(row.id)
      for (const [id, delivery] of deliveries) if (delivery.endpointId === row.id) deliveries.delete(id)
      return true
    },
  }

  const ofEndpoint = (input: { tenantId: string; endpointId: string }) =>
    [...deliveries.values()].filter((row) => sameTenant(row, input) && row.endpointId === input.endpointId)
  const visible = ({ tenantId: _tenantId, ...delivery }: StoredWebhookDelivery & { tenantId: string }) => ({
    ...delivery,
  })

  const deliveryStore: WebhookDeliveryStore = {
    async insertDelivery(input) {
      const endpoint = endpoints.get(input.endpointId)
      if (!endpoint || !sameTenant(endpoint, input)) return null
      const row = {
        id: randomUUID(),
        tenantId: input.tenantId,
        endpointId: input.endpointId,
        webhookId: `msg_${randomUUID().replaceAll('-', '')}`,
        eventType: input.eventType,
        payload: input.payload,
        status: 'pending' as const,
        attempts: 0,
        nextAttemptAt: now(),
        lastAttemptAt: null,
        lastStatusCode: null,
        lastError: null,
        lastResponse: null,
        deliveredAt: null,
        failedAt: null,
        createdAt: now(),
      }
      deliveries.set(row.id, row)
      state.notifications += 1
      return visible(row)
    },
    async replayDeliveries(input) {
      const rows = ofEndpoint(input).filter((row) => input.deliveryIds.includes(row.id))
      for (const row of rows) Object.assign(row, { status: 'pending', nextAttemptAt: now(), failedAt: null })
      if (rows.length > 0) state.notifications += 1
      return rows.map(visible)
    },
    async listDeliveries(input) {
      const rows = ofEndpoint(input)
        .filter((row) => input.status === undefined || row.status === input.status)
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id.localeCompare(a.id))
      const start = input.after === undefined ? 0 : rows.findIndex((row) => row.id === input.after) + 1
      return (start === 0 && input.after !== undefined ? [] : rows.slice(start))
        .slice(0, input.limit)
        .map(visible)
    },
    async findDelivery(input) {
      const row = deliveries.get(input.deliveryId)
      return row && sameTenant(row, input) && row.endpointId === input.endpointId ? visible(row) : null
    },
    async listAttempts(input) {
      const row = deliveries.get(input.deliveryId)
      return row && sameTenant(row, input) ? [...(attempts.get(row.id) ?? [])] : []
    },
  }

  return { state, endpointStore, deliveryStore }
}

/** A DNS that knows the given names; any other name is ENOTFOUND. */
export function memoryHosts(zone: Record<string, string[]>): HostAddressLookup & { asked: string[] } {
  const asked: string[] = []
  return {
    asked,
    async resolve(host) {
      asked.push(host)
      const addresses = zone[host]
      return addresses ? { addresses } : { error: 'ENOTFOUND' }
    },
  }
}
