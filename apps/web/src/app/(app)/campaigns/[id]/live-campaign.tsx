'use client'

import type { CampaignStatus } from '@fairlane/core'
import { createContext, type ReactNode, useContext, useEffect, useState } from 'react'
import type { CampaignProgressView } from '@/server/campaigns/campaign-progress'
import { pollIntervalMs } from './live-progress'

const LiveCampaign = createContext<CampaignProgressView | null>(null)

/**
 * The campaign's live view, shared by everything on its page that depends on it (counts, status,
 * the actions a status allows): polled from `/campaigns/:id/status` while the page is open and
 * visible, every second while mail goes out, until the campaign is done (`pollIntervalMs`). The
 * server-rendered view shows first, and stays without JavaScript.
 */
export function LiveCampaignProvider({
  campaignId,
  initial,
  children,
}: {
  campaignId: string
  initial: CampaignProgressView
  children: ReactNode
}) {
  const [data, setData] = useState(initial)
  const intervalMs = pollIntervalMs(data)
  useEffect(() => {
    if (intervalMs === null) return
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
    }, intervalMs)
    return () => {
      stopped = true
      clearInterval(timer)
    }
  }, [campaignId, intervalMs])
  return <LiveCampaign.Provider value={data}>{children}</LiveCampaign.Provider>
}

export function useLiveCampaign(): CampaignProgressView {
  const data = useContext(LiveCampaign)
  if (!data) throw new Error('useLiveCampaign needs a LiveCampaignProvider around it')
  return data
}

/**
 * Shows its children only while the live status is one of `statuses`: an Edit button disappears
 * when dispatch starts, Cancel when the campaign is sent, without a reload.
 */
export function WhileStatus({
  statuses,
  children,
}: {
  statuses: readonly CampaignStatus[]
  children: ReactNode
}) {
  const { status } = useLiveCampaign()
  return statuses.includes(status) ? children : null
}
