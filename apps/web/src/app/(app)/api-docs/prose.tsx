/** A description from the document: plain text with `code` spans (the only markdown it uses). */
export function Prose({ text }: { text: string | undefined }) {
  if (!text) return null
  const parts = text.split('`')
  return (
    <>
      {parts.map((part, index) =>
        // Odd pieces sat between backticks; the split's positions are the pieces' only identity.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        index % 2 === 1 ? <code key={index}>{part}</code> : <span key={index}>{part}</span>,
      )}
    </>
  )
}
