'use client'

import { useCallback, useEffect, useRef, useState } from 'react'

/**
 * The controlled fields of a form whose server action answers with `{ values }`: they start from the
 * action's state, not the page's initial values (a form submitted before hydration comes back as a
 * new page whose first state is already the answer), and take the values of each later answer; not
 * on mount, where they are already the state's and would be put back over what a child's own effect
 * just set (children's effects run before their parent's: the campaign schedule's browser zone).
 * A refused form puts the user at its first error: the field is focused (its error is its
 * accessible description) and scrolled into view.
 */
export function useAnsweredForm<Values extends object>(state: { values: Values }) {
  const [values, setValues] = useState(state.values)
  const answered = useRef(state)
  const form = useRef<HTMLFormElement>(null)
  useEffect(() => {
    if (answered.current === state) return
    answered.current = state
    setValues(state.values)
    const firstInvalid = form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')
    if (firstInvalid) {
      firstInvalid.focus({ preventScroll: true })
      firstInvalid.scrollIntoView({ block: 'center' })
    }
  }, [state])
  const change = useCallback(
    (patch: Partial<Values>) => setValues((current) => ({ ...current, ...patch })),
    [],
  )
  return { values, change, form }
}
