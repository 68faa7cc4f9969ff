/**
 * What a probe found: `up` answers; `starting` is a server still starting or loading (wait for it);
 * `rejected` answered but refused us (credentials: starting another server would not help);
 * `down` means nothing answered.
 */
export type Probe = { state: 'up' } | { state: 'down' | 'starting' | 'rejected'; reason: string }

export interface EnsuredService {
  url: string
  /** `postgres:<port>` or `redis:<port>` when this call started the server, else null. */
  started: string | null
  /** Stops the server if this call started it; safe to call more than once. */
  stop(): Promise<void>
  /**
   * When this call started the server: how another process stops it cleanly should we die without
   * calling stop() (see reaper.ts) — the pid file the server writes and the signal that shuts it down.
   */
  stopBySignal?: StopBySignal | StopBySignal[]
}

export interface StopBySignal {
  name: string
  pidFile: string
  signal: NodeJS.Signals
}
