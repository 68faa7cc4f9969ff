/** A status word with a colour class; the word itself carries the meaning, the colour only helps. */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status}`}>{status}</span>
}
