'use client'

import type { PlanJson } from '@fairlane/core'
import { type FormEvent, useState } from 'react'
import { FormField } from '@/components/form-field'
import type { NamedPlanJson } from '@/server/api/admin/list-plans'
import styles from '../admin.module.css'
import { sendJson, usePolling } from '../use-polling'
import {
  columnsOfJson,
  describeLimits,
  describePlan,
  PLAN_FIELDS,
  type PlanField,
  planFieldOf,
  planPatch,
  planText,
  validatePlan,
} from './plan-form'

const LABELS: Record<PlanField, { label: string; hint: string }> = {
  ratePerSec: { label: 'Rate (per second)', hint: 'never sends faster' },
  burst: { label: 'Burst', hint: 'sends at once after a pause' },
  weight: { label: 'Weight', hint: 'share of spare capacity' },
  txRatePerSec: { label: 'Transactional rate (per second)', hint: 'empty: the platform’s' },
  txBurst: { label: 'Transactional burst', hint: 'empty: the platform’s' },
  quotaDaily: { label: 'Daily quota', hint: 'messages per UTC day; empty: none' },
  quotaMonthly: { label: 'Monthly quota', hint: 'messages per month; empty: none' },
}

type Errors = Partial<Record<PlanField | 'planName', string>>

/**
 * Edits one tenant's plan through `PATCH /api/admin/tenants/:id`: a named plan and the fields set by
 * hand for this tenant (whatever differs from the named plan is sent as an override; audited by the
 * server). Errors show next to their field.
 */
export function PlanEditor({
  tenant,
  onDone,
}: {
  tenant: { id: string; name: string; planName: string; plan: PlanJson }
  onDone(message: string | null): void
}) {
  const plans = usePolling<NamedPlanJson[]>('/api/admin/plans', 60_000)
  const [planName, setPlanName] = useState(tenant.planName)
  const [values, setValues] = useState(() => planText(columnsOfJson(tenant.plan)))
  const [errors, setErrors] = useState<Errors>({})
  const [formError, setFormError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const named = (name: string) => plans.data?.find((plan) => plan.name === name)

  // Another named plan: the fields that followed the old plan follow the new one; hand-set ones stay.
  const choosePlan = (next: string) => {
    const before = named(planName)
    const after = named(next)
    setPlanName(next)
    if (!before || !after) return
    const oldText = planText(columnsOfJson(before))
    const newText = planText(columnsOfJson(after))
    setValues((current) => {
      const updated = { ...current }
      for (const field of PLAN_FIELDS)
        if (current[field].trim() === oldText[field]) updated[field] = newText[field]
      return updated
    })
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const checked = validatePlan(values)
    if ('errors' in checked) {
      setErrors(checked.errors)
      return
    }
    const definition = named(planName)
    if (!definition) {
      setFormError('The named plans are still loading; try again in a moment.')
      return
    }
    setBusy(true)
    const answer = await sendJson<{ planName: string; plan: PlanJson }>(
      `/api/admin/tenants/${tenant.id}`,
      'PATCH',
      planPatch(planName, checked.plan, columnsOfJson(definition)),
    )
    setBusy(false)
    if (answer.status === 200 && answer.body) {
      const plan = answer.body
      onDone(
        `Plan of ${tenant.name} is now ${describePlan(plan.plan)} (${plan.planName}; ${describeLimits(plan.plan)}).`,
      )
      return
    }
    const fieldErrors: Errors = {}
    for (const issue of answer.body?.error?.details ?? []) {
      const field = planFieldOf(issue.path)
      if (field) fieldErrors[field] ??= issue.message
    }
    setErrors(fieldErrors)
    setFormError(
      Object.keys(fieldErrors).length > 0
        ? null
        : (answer.body?.error?.message ?? `The server answered ${answer.status}`),
    )
  }

  const selectId = `plan-${tenant.id}-name`
  return (
    <form
      onSubmit={submit}
      className={styles.planForm}
      noValidate
      aria-label={`Plan of ${tenant.name}`}
      data-testid="plan-editor"
    >
      <div className="field">
        <label htmlFor={selectId}>Named plan</label>
        <span id={`${selectId}-hint`} className="hint">
          fields that differ are set for this tenant
        </span>
        <select
          id={selectId}
          name="planName"
          value={planName}
          aria-invalid={errors.planName ? true : undefined}
          aria-describedby={`${selectId}-hint${errors.planName ? ` ${selectId}-error` : ''}`}
          onChange={(event) => choosePlan(event.target.value)}
        >
          {(plans.data ?? [{ name: tenant.planName }]).map((plan) => (
            <option key={plan.name} value={plan.name}>
              {plan.name}
            </option>
          ))}
          {plans.data && !named(tenant.planName) ? (
            <option value={tenant.planName}>{tenant.planName} (no longer in PLANS)</option>
          ) : null}
        </select>
        {errors.planName ? (
          <p id={`${selectId}-error`} className="field-error">
            {errors.planName}
          </p>
        ) : null}
      </div>
      {PLAN_FIELDS.map((field) => (
        <FormField
          key={field}
          id={`plan-${tenant.id}-${field}`}
          name={field}
          label={LABELS[field].label}
          hint={LABELS[field].hint}
          error={errors[field]}
          inputMode="numeric"
          value={values[field]}
          onChange={(event) => setValues((current) => ({ ...current, [field]: event.target.value }))}
        />
      ))}
      <div className={styles.actions} style={{ alignSelf: 'center' }}>
        <button type="submit" className="button" disabled={busy}>
          Save plan
        </button>
        <button type="button" className="button-secondary" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
      {formError ? (
        <p className="form-error" role="alert">
          {formError}
        </p>
      ) : null}
    </form>
  )
}
