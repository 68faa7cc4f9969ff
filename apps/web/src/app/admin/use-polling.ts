'use client'

import { useCallback, useEffect, useRef, useState } from 'react'

/** The console's refresh rate: fresh enough to watch a queue drain, cheap enough to leave open. */
export const POLL_INTERVAL_MS = 2000

export interface Polled<T> {
  data: T | null
  /** The last failure's message (the previous data stays shown), or null. */
  error: string | null
  /** Fetches now (after an action), without waiting for the next tick. */
  refresh(): void
}

/**
 * GETs `url` (an `/api/admin` call, with the session cookie) now and every `intervalMs` while the tab
 * is visible; a new `url` (a changed filter) fetches at once. Null `url` pauses.
 */
export function usePolling<T>(url: string | null, intervalMs = POLL_INTERVAL_MS): Polled<T> {
  const [data, setData] = useState<T | null>(null)
  const [error, setError] = useState<string | null>(null)
  const latest = useRef(url)
  latest.current = url

  const load = useCallback(async () => {
    const target = latest.current
    if (target === null) return
    try {
      const response = await fetch(target, { cache: 'no-store' })
      const body = await response.json().catch(() => null)
      if (latest.current !== target) return // a newer filter's answer is on its way
      if (!response.ok) {
        setError(body?.error?.message ?? `The server answered ${response.status}`)
        return
      }
      setData(body as T)
      setError(null)
    } catch {
      setError('The server did not answer; retrying')
    }
  }, [])

  useEffect(() => {
    if (url === null) return
    load().catch(() => {})
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') load().catch(() => {})
    }, intervalMs)
    return () => clearInterval(timer)
  }, [url, intervalMs, load])

  return { data, error, refresh: () => void load() }
}

/** An `/api/admin` error body: `details` name the fields of a 400. */
export interface ApiErrorBody {
  error?: { code?: string; message?: string; details?: { path: string; message: string }[] }
}

/** Sends a JSON change to the admin API; resolves to the status and body whatever the status. */
export async function sendJson<T>(
  url: string,
  method: 'POST' | 'PATCH' | 'DELETE',
  body: unknown,
): Promise<{ status: number; body: (T & ApiErrorBody) | null }> {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: await response.json().catch(() => null) }
}
