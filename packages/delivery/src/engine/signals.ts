/**
 * What one part of the engine tells the others, in one place instead of callbacks handed sideways
 * between relay, lanes, pacer and the receiver gate. Created once per engine (`startDelivery`) and
 * given to each part, which subscribes to what it reacts to and emits what it knows.
 */
export interface DeliverySignals {
  /**
   * A transactional lane job gave its tenant's slot back (the tenant's `laneParkKey`): the relay looks
   * at that tenant's parked rows now if it had set it aside as full.
   */
  slotFreed: Signal<string>
  /** Pending bulk mail was just created (a campaign dispatched): the pacer ticks now, not at its interval. */
  pacerWake: Signal<void>
  /**
   * The receiver gate wrote a provider's new state (it throttled, and is paused or slower now): the
   * pacer ticks at once rather than releasing at the old rate until its next interval.
   */
  providerStateChanged: Signal<ProviderStateChange>
}

export interface ProviderStateChange {
  provider: string
  /** The egress address whose budget changed; '' when sends leave from the default address. */
  egress: string
}

export interface Signal<Value> {
  /**
   * Calls every listener now, in subscription order. A listener that throws (or whose promise
   * rejects) is logged and skipped: the emitter — a send, a relay pass — never fails for a listener.
   */
  emit(value: Value): void
  /** Returns the unsubscribe; a part that stops must call it, or its listener outlives it. */
  subscribe(listener: (value: Value) => unknown): () => void
}

export interface SignalOptions {
  logger: { warn(details: object, message: string): void }
  /**
   * Listeners one signal may hold. The engine's parts subscribe a few times each; more means a part
   * subscribes per job or per pass without unsubscribing, which would grow without bound: refused.
   */
  maxListeners?: number
}

export const DEFAULT_MAX_LISTENERS = 32

export function createDeliverySignals(options: SignalOptions): DeliverySignals {
  return {
    slotFreed: createSignal('slotFreed', options),
    pacerWake: createSignal('pacerWake', options),
    providerStateChanged: createSignal('providerStateChanged', options),
  }
}

export function createSignal<Value>(name: string, options: SignalOptions): Signal<Value> {
  const maxListeners = options.maxListeners ?? DEFAULT_MAX_LISTENERS
  // A Set: one entry per subscription object, so unsubscribing twice or out of order is harmless.
  const listeners = new Set<{ listener: (value: Value) => unknown }>()
  const failed = (error: unknown) =>
    options.logger.warn(
      { err: (error as Error)?.message ?? String(error), signal: name },
      'signal listener failed',
    )
  return {
    emit(value) {
      // A copy: a listener that unsubscribes (or subscribes) while this runs changes the next emit only.
      for (const entry of [...listeners]) {
        try {
          const result = entry.listener(value)
          if (result instanceof Promise) result.catch(failed)
        } catch (error) {
          failed(error)
        }
      }
    },
    subscribe(listener) {
      if (listeners.size >= maxListeners)
        throw new Error(`signal ${name} has ${listeners.size} listeners already: one is never unsubscribed`)
      const entry = { listener }
      listeners.add(entry)
      return () => {
        listeners.delete(entry)
      }
    },
  }
}
