import type { DomainView } from '@fairlane/core'
import { LocalTime } from '@/components/local-time'

const PHASES: Record<DomainView['dkim']['phase'], string> = {
  'awaiting-first-record': 'Nothing is signed yet: the first key signs once its record verifies.',
  active: 'Mail is signed with the key below.',
  rotating:
    'A new key is waiting for its record: the current key keeps signing until the new record verifies, then the new key takes over.',
  held: 'The signing key’s record is missing or wrong: mail from this domain is held, not sent unsigned.',
}

/** Which DKIM key signs, the new one waiting for its record, and retired records that may be removed. */
export function DkimRotation({ domain }: { domain: DomainView }) {
  const { dkim } = domain
  const retired = domain.records.filter((record) => record.purpose === 'dkim' && record.removableAfter)
  return (
    <div data-testid="dkim-rotation" data-phase={dkim.phase}>
      <p>{PHASES[dkim.phase]}</p>
      <dl className="details">
        <dt>Signing with</dt>
        <dd data-testid="dkim-signing">
          {dkim.signingSelector ? (
            <code>{dkim.signingSelector}</code>
          ) : (
            <span className="muted">no key yet</span>
          )}
        </dd>
        {dkim.pendingSelector ? (
          <>
            <dt>{dkim.signingSelector ? 'New key' : 'First key'}</dt>
            <dd data-testid="dkim-pending">
              <code>{dkim.pendingSelector}</code> — pending: publish its record, then verify
            </dd>
          </>
        ) : null}
        {retired.map((record) => (
          <Retired key={record.selector} selector={record.selector} removableAfter={record.removableAfter} />
        ))}
      </dl>
    </div>
  )
}

function Retired({
  selector,
  removableAfter,
}: {
  selector?: string | undefined
  removableAfter?: Date | undefined
}) {
  return (
    <>
      <dt>Old key</dt>
      <dd data-testid="dkim-retired">
        <code>{selector}</code> — no longer signs; its record can be removed after{' '}
        <LocalTime value={removableAfter ?? null} />
      </dd>
    </>
  )
}
