'use client'

import type { CampaignCounts } from '@fairlane/db/queries/campaigns'
import { useEffect, useState } from 'react'
import styles from '../campaigns.module.css'

const POLL_MS = 2000
const LABELS: [keyof CampaignCounts, string][] = [
  ['pending', 'Pending'],
  ['queued', 'Queued'],
  ['sent', 'Sent'],
  ['failed', 'Failed'],
  ['suppressed', 'Suppressed'],
]

/**
 * Status and counts, refreshed every 2 s from `/campaigns/:id/status` while the page is open. The
 * server-rendered numbers show first (and stay, without JavaScript); polling stops when hidden.
 */
export function LiveCounts({
  campaignId,
  initialStatus,
  initialCounts,
}: {
  campaignId: string
  initialStatus: string
  initialCounts: CampaignCounts
}) {
  const [data, setData] = useState({ status: initialStatus, counts: initialCounts })
  useEffect(() => {
    let stopped = false
    const poll = async () => {
      if (document.visibilityState !== 'visible') return
      try {
        const response = await fetch(`/campaigns/${campaignId}/status`, { cache: 'no-store' })
        if (response.ok && !stopped) setData(await response.json())
      } catch {
        // A failed poll (offline, deploy) is retried on the next tick; the last numbers stay shown.
      }
    }
    const timer = setInterval(() => {
      poll().catch(() => {})
    }, POLL_MS)
    return () => {
      stopped = true
      clearInterval(timer)
    }
  }, [campaignId])
  return (
    <div aria-live="polite">
      <p>
        Status:{' '}
        <span className={`badge badge-${data.status}`} data-testid="campaign-status">
          {data.status}
        </span>
      </p>
      <dl className={styles.counts}>
        {LABELS.map(([key, label]) => (
          <div key={key}>
            <dt>{label}</dt>
            <dd data-testid={`count-${key}`}>{data.counts[key]}</dd>
          </div>
        ))}
      </dl>
    </div>
  )
}
