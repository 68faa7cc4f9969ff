'use client'

import { useState } from 'react'
import { sendJson } from '../use-polling'

/** Lets a held tenant send (`PATCH /api/admin/tenants/:id` `{ approved: true }`, audited). */
export function ApproveButton({
  tenant,
  onDone,
}: {
  tenant: { id: string; name: string }
  onDone(message: string): void
}) {
  const [busy, setBusy] = useState(false)
  const approve = async () => {
    setBusy(true)
    const answer = await sendJson(`/api/admin/tenants/${tenant.id}`, 'PATCH', { approved: true })
    setBusy(false)
    onDone(
      answer.status === 200
        ? `${tenant.name} is approved: it may send once its email is verified.`
        : (answer.body?.error?.message ?? `The server answered ${answer.status}`),
    )
  }
  return (
    <button type="button" className="button" disabled={busy} onClick={approve}>
      Approve
    </button>
  )
}
