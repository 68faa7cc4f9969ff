'use client'

import { useActionState } from 'react'
import { CopyButton } from '@/components/copy-button'
import { FormField } from '@/components/form-field'
import { useAnsweredForm } from '@/components/use-answered-form'
import type { WebhookFormState, WebhookFormValues } from './actions'
import styles from './webhooks.module.css'

interface Props {
  action: (state: WebhookFormState, form: FormData) => Promise<WebhookFormState>
  initial: WebhookFormValues
  /** WEBHOOK_EVENT_TYPES, from the server page (core stays out of the browser's bundle). */
  eventTypes: readonly string[]
  /** Editing this endpoint; a new one when left out. */
  endpointId?: string
}

/**
 * An endpoint's URL, description and event types (checkboxes). A refusal is said beside its field;
 * a create answers the signing secret, shown here once with a copy button.
 */
export function WebhookForm({ action, initial, eventTypes, endpointId }: Props) {
  const [state, formAction, pending] = useActionState(action, { values: initial })
  const { values, change, form } = useAnsweredForm(state)
  const errors = state.errors ?? {}
  const toggle = (type: string, on: boolean) =>
    change({ events: on ? [...values.events, type] : values.events.filter((known) => known !== type) })
  return (
    <>
      {state.created ? (
        <div className="notice" role="status" aria-live="polite" data-testid="new-webhook">
          <p>
            <strong>Endpoint added for {state.created.url}.</strong> Copy its signing secret now: it is shown
            only this once. Your receiver verifies the <code>webhook-signature</code> header with it.
          </p>
          <p>
            <code className={styles.secret} data-testid="webhook-secret">
              {state.created.secret}
            </code>{' '}
            <CopyButton text={state.created.secret} ariaLabel="Copy the signing secret" />
          </p>
          <p>
            <a href={`/webhooks/${state.created.id}`}>Open the endpoint and send a test event</a>
          </p>
        </div>
      ) : null}
      {state.saved ? (
        <p className="notice" role="status">
          Saved.
        </p>
      ) : null}
      <form ref={form} action={formAction} className="form" noValidate>
        {endpointId ? <input type="hidden" name="endpointId" value={endpointId} /> : null}
        <FormField
          name="url"
          label="URL"
          hint="Where Fairlane POSTs the events: https, at most 2,048 characters, a public address."
          required
          maxLength={2048}
          placeholder="https://example.com/webhooks/fairlane"
          autoComplete="off"
          spellCheck={false}
          value={values.url}
          onChange={(event) => change({ url: event.target.value })}
          error={errors.url}
        />
        <FormField
          name="description"
          label="Description (optional)"
          maxLength={200}
          value={values.description}
          onChange={(event) => change({ description: event.target.value })}
          error={errors.description}
        />
        <fieldset
          className={styles.events}
          aria-invalid={errors.events ? true : undefined}
          aria-describedby={errors.events ? 'webhook-events-error' : undefined}
        >
          <legend>Events to send</legend>
          {eventTypes.map((type) => (
            <label key={type}>
              <input
                type="checkbox"
                name="events"
                value={type}
                checked={values.events.includes(type)}
                onChange={(event) => toggle(type, event.target.checked)}
              />
              <code>{type}</code>
            </label>
          ))}
        </fieldset>
        {errors.events ? (
          <p id="webhook-events-error" className="field-error">
            {errors.events}
          </p>
        ) : null}
        {errors.form ? (
          <p className="form-error" role="alert">
            {errors.form}
          </p>
        ) : null}
        <div className="field">
          <button type="submit" className="button" disabled={pending}>
            {pending ? 'Saving…' : endpointId ? 'Save changes' : 'Add endpoint'}
          </button>
        </div>
      </form>
    </>
  )
}
