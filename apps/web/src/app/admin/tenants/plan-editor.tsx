'use client'

import { type FormEvent, useState } from 'react'
import { FormField } from '@/components/form-field'
import styles from '../admin.module.css'
import { sendJson } from '../use-polling'
import { PLAN_FIELDS, type Plan, type PlanField, planFieldOf, validatePlan } from './plan-form'

const LABELS: Record<PlanField, { label: string; hint: string }> = {
  ratePerSec: { label: 'Rate (per second)', hint: 'never sends faster' },
  burst: { label: 'Burst', hint: 'sends at once after a pause' },
  weight: { label: 'Weight', hint: 'share of spare capacity' },
}

/** Edits one tenant's plan through `PATCH /api/admin/tenants/:id`; errors show next to their field. */
export function PlanEditor({
  tenant,
  onDone,
}: {
  tenant: { id: string; name: string; plan: Plan }
  onDone(message: string | null): void
}) {
  const [values, setValues] = useState<Record<PlanField, string>>({
    ratePerSec: String(tenant.plan.ratePerSec),
    burst: String(tenant.plan.burst),
    weight: String(tenant.plan.weight),
  })
  const [errors, setErrors] = useState<Partial<Record<PlanField, string>>>({})
  const [formError, setFormError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const checked = validatePlan(values)
    if ('errors' in checked) {
      setErrors(checked.errors)
      return
    }
    setBusy(true)
    const answer = await sendJson(`/api/admin/tenants/${tenant.id}`, 'PATCH', { plan: checked.plan })
    setBusy(false)
    if (answer.status === 200) {
      onDone(
        `Plan of ${tenant.name} is now ${checked.plan.ratePerSec}/s, burst ${checked.plan.burst}, weight ${checked.plan.weight}.`,
      )
      return
    }
    const fieldErrors: Partial<Record<PlanField, string>> = {}
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

  return (
    <form
      onSubmit={submit}
      className={styles.planForm}
      noValidate
      aria-label={`Plan of ${tenant.name}`}
      data-testid="plan-editor"
    >
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
