/** Whether campaigns may mail a contact: an unsubscribe is the contact's own choice, shown in red. */
export function SubscriptionBadge({ unsubscribedAt }: { unsubscribedAt: Date | null }) {
  return unsubscribedAt ? (
    <span className="badge badge-failed">unsubscribed</span>
  ) : (
    <span className="badge badge-active">subscribed</span>
  )
}
