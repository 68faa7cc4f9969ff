'use client'

import { useEffect, useState, useTransition } from 'react'
import {
  currentZoneName,
  type EditorState,
  type EditorValues,
  type ScheduleDescription,
} from '@/server/campaigns/editor-state'
import { describeScheduleAction } from './actions'
import styles from './campaigns.module.css'

interface Props {
  values: EditorValues
  state: EditorState
  zones: string[]
  onChange(patch: Partial<EditorValues>): void
}

/**
 * When to send: draft, now, or a wall time in an IANA zone. The zone defaults to the browser's (set
 * after mount: the server cannot know it). The resolved UTC instant is shown as the user types; a
 * skipped or repeated wall time is asked about, never guessed.
 */
export function ScheduleFields({ values, state, zones, onChange }: Props) {
  const [description, setDescription] = useState<ScheduleDescription | null>(null)
  const [, startTransition] = useTransition()

  useEffect(() => {
    if (values.timeZone !== '') return
    const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone
    if (browserZone) onChange({ timeZone: currentZoneName(browserZone) })
  }, [values.timeZone, onChange])

  useEffect(() => {
    if (values.schedule !== 'later' || values.local === '' || values.timeZone === '') {
      setDescription(null)
      return
    }
    const timer = setTimeout(() => {
      startTransition(async () => {
        setDescription(await describeScheduleAction(values.local, values.timeZone))
      })
    }, 200)
    return () => clearTimeout(timer)
  }, [values.schedule, values.local, values.timeZone])

  const later = values.schedule === 'later'
  const overlap = state.overlap ?? (description?.kind === 'overlap' ? description : undefined)
  return (
    <div className={`card ${styles.stack}`}>
      <h2>Schedule</h2>
      <fieldset className={styles.choices}>
        <legend>When</legend>
        {(
          [
            ['later', 'At a date and time'],
            ['now', 'Send now'],
            ['draft', 'Save as draft (do not schedule yet)'],
          ] as const
        ).map(([value, label]) => (
          <label key={value} className={styles.choice}>
            <input
              type="radio"
              name="schedule"
              value={value}
              checked={values.schedule === value}
              onChange={() => onChange({ schedule: value })}
            />
            {label}
          </label>
        ))}
      </fieldset>
      {later ? (
        <>
          <div className={styles.row}>
            <div className="field">
              <label htmlFor="field-local">Local date and time</label>
              <input
                id="field-local"
                type="datetime-local"
                name="local"
                value={values.local}
                aria-invalid={state.errors.local ? true : undefined}
                aria-describedby={state.errors.local ? 'field-local-error' : undefined}
                onChange={(event) => onChange({ local: event.target.value, fold: '' })}
              />
            </div>
            <div className="field">
              <label htmlFor="field-timeZone">Time zone</label>
              <select
                id="field-timeZone"
                name="timeZone"
                value={values.timeZone}
                aria-invalid={state.errors.timeZone ? true : undefined}
                onChange={(event) => onChange({ timeZone: event.target.value, fold: '' })}
              >
                {values.timeZone === '' ? <option value="">Choose a time zone</option> : null}
                {values.timeZone !== '' && !zones.includes(values.timeZone) ? (
                  <option value={values.timeZone}>{values.timeZone}</option>
                ) : null}
                {zones.map((zone) => (
                  <option key={zone} value={zone}>
                    {zone}
                  </option>
                ))}
              </select>
            </div>
          </div>
          {state.errors.local ? (
            <p id="field-local-error" className="field-error">
              {state.errors.local}
            </p>
          ) : null}
          {state.errors.timeZone ? <p className="field-error">{state.errors.timeZone}</p> : null}
          <p className={styles.resolved} aria-live="polite" data-testid="resolved-utc">
            {describe(description, values)}
          </p>
          {state.gap ? (
            <div className={styles.warning} role="alert">
              <p>
                {state.gap.local.replace('T', ' ')} does not exist in {values.timeZone}: the clocks skip that
                hour. The first valid time after it is {state.gap.suggestion.replace('T', ' ')} (
                {state.gap.suggestionUtc}).
              </p>
              <button
                type="submit"
                name="suggestedLocal"
                value={state.gap.suggestion}
                className="button-secondary"
              >
                Use {state.gap.suggestion.replace('T', ' ')} instead
              </button>
            </div>
          ) : null}
          {overlap ? (
            <fieldset className={`${styles.choices} ${styles.warning}`}>
              <legend>
                {values.local.replace('T', ' ')} happens twice in {values.timeZone}. Which one?
              </legend>
              {(
                [
                  ['earlier', `The first one, UTC${overlap.earlierOffset} (${overlap.earlierUtc})`],
                  ['later', `The second one, UTC${overlap.laterOffset} (${overlap.laterUtc})`],
                ] as const
              ).map(([value, label]) => (
                <label key={value} className={styles.choice}>
                  <input
                    type="radio"
                    name="fold"
                    value={value}
                    checked={values.fold === value}
                    onChange={() => onChange({ fold: value })}
                  />
                  {label}
                </label>
              ))}
              {state.errors.fold ? <p className="field-error">{state.errors.fold}</p> : null}
            </fieldset>
          ) : null}
        </>
      ) : null}
    </div>
  )
}

function describe(description: ScheduleDescription | null, values: EditorValues): string {
  if (description === null) return ''
  switch (description.kind) {
    case 'ok':
      return `Sends at ${values.local.replace('T', ' ')} ${values.timeZone} (UTC${description.offset}) = ${description.utc}`
    case 'gap':
      return `This time does not exist in ${values.timeZone} (clocks skip it); the first valid time after it is ${description.suggestion.replace('T', ' ')} = ${description.suggestionUtc}.`
    case 'overlap':
      return `This time happens twice in ${values.timeZone}: choose below.`
    case 'error':
      return description.message
  }
}
