import { cancelMessageAction } from './actions'

/** Cancels a message not yet sent (scheduled, or queued and not taken): a plain form, works without JS. */
export function CancelMessageButton({ messageId, back }: { messageId: string; back: 'list' | 'page' }) {
  return (
    <form action={cancelMessageAction} className="inline-form">
      <input type="hidden" name="messageId" value={messageId} />
      <input type="hidden" name="back" value={back} />
      <button type="submit" className="button button-secondary" data-testid="cancel-message">
        Cancel
      </button>
    </form>
  )
}
