import { Fragment } from 'react'
import { DateTime } from '@/components/date-time'
import type { DkimView } from '../domain-view'

const PHASES: Record<DkimView['phase'], string> = {
  'awaiting-first-record': 'Nothing is signed yet: the first key signs once its record verifies.',
  active: 'Mail is signed with the active key.',
  rotating:
    'A new key is waiting for its record: the active key keeps signing until the new record verifies, then the new key takes over.',
  held: 'The active key’s record is missing or wrong: mail from this domain is held, not sent unsigned.',
}

/** Which DKIM key signs, the new one waiting for its record, and retired records that may be removed. */
export function DkimRotation({ dkim }: { dkim: DkimView }) {
  return (
    <div data-testid="dkim-rotation" data-phase={dkim.phase}>
      <p>{PHASES[dkim.phase]}</p>
      <dl className="details">
        <dt>Signing key</dt>
        <dd data-testid="dkim-active">
          {dkim.active ? <code>{dkim.active.selector}</code> : <span className="muted">none yet</span>}
        </dd>
        {dkim.pending ? (
          <>
            <dt>{dkim.active ? 'New key' : 'First key'}</dt>
            <dd data-testid="dkim-pending">
              <code>{dkim.pending.selector}</code> — pending: publish its record, then verify
            </dd>
          </>
        ) : null}
        {dkim.retired.map((key) => (
          <Fragment key={key.selector}>
            <dt>Old key</dt>
            <dd data-testid="dkim-retired">
              <code>{key.selector}</code> — can be removed after{' '}
              <DateTime value={new Date(key.removableAt)} />
            </dd>
          </Fragment>
        ))}
      </dl>
    </div>
  )
}
