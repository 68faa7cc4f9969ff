import { AppError } from '@fairlane/core/errors'
import { describe, expect, it } from 'vitest'
import { editorValuesOf, parseEditorForm, stateFromError } from './campaign-form'

const now = new Date('2026-01-01T00:00:00Z')

function form(fields: Record<string, string>): FormData {
  const data = new FormData()
  const base = {
    name: 'Spring',
    subject: 'Hi {{name}}',
    html: '<p>x</p>',
    audience: 'all',
    schedule: 'later',
  }
  for (const [key, value] of Object.entries({ ...base, ...fields })) data.set(key, value)
  return data
}

describe('the campaign editor form', () => {
  it('schedules a wall time in a zone', () => {
    const outcome = parseEditorForm(
      editorValuesOf(form({ local: '2026-12-24T09:00', timeZone: 'Asia/Ho_Chi_Minh' })),
      now,
    )
    expect(outcome).toMatchObject({
      ok: true,
      draft: {
        listId: null,
        segmentId: null,
        text: null,
        schedule: { kind: 'local', local: '2026-12-24T09:00', timeZone: 'Asia/Ho_Chi_Minh' },
      },
    })
  })

  it('asks about a skipped wall time with a suggestion, and takes the suggestion', () => {
    const values = editorValuesOf(form({ local: '2026-03-29T02:30', timeZone: 'Europe/Berlin' }))
    expect(parseEditorForm(values, now)).toMatchObject({
      ok: false,
      state: { gap: { suggestion: '2026-03-29T03:00', suggestionUtc: '2026-03-29 01:00 UTC' } },
    })
    const accepted = editorValuesOf(
      form({ local: '2026-03-29T02:30', timeZone: 'Europe/Berlin', suggestedLocal: '2026-03-29T03:00' }),
    )
    expect(parseEditorForm(accepted, now)).toMatchObject({
      ok: true,
      draft: { schedule: { local: '2026-03-29T03:00' } },
    })
  })

  it('asks which of a repeated wall time is meant, then takes the choice', () => {
    const values = editorValuesOf(form({ local: '2026-11-01T01:30', timeZone: 'America/New_York' }))
    expect(parseEditorForm(values, now)).toMatchObject({
      ok: false,
      state: {
        overlap: { earlierUtc: '2026-11-01 05:30 UTC', laterUtc: '2026-11-01 06:30 UTC' },
        errors: { fold: expect.any(String) },
      },
    })
    const chosen = editorValuesOf(
      form({ local: '2026-11-01T01:30', timeZone: 'America/New_York', fold: 'later' }),
    )
    expect(parseEditorForm(chosen, now)).toMatchObject({ ok: true, draft: { schedule: { fold: 'later' } } })
  })

  it('names bad fields: empty name, past time, unknown zone; drafts and "now" need no time', () => {
    const outcome = parseEditorForm(
      editorValuesOf(form({ name: ' ', local: '2025-06-01T09:00', timeZone: 'UTC' })),
      now,
    )
    expect(outcome).toMatchObject({
      ok: false,
      state: { errors: { name: expect.any(String), local: expect.stringMatching(/past/) } },
    })
    expect(
      parseEditorForm(editorValuesOf(form({ local: '2026-06-01T09:00', timeZone: 'Nowhere/City' })), now),
    ).toMatchObject({
      ok: false,
      state: { errors: { timeZone: expect.any(String) } },
    })
    expect(parseEditorForm(editorValuesOf(form({ schedule: 'draft' })), now)).toMatchObject({
      ok: true,
      draft: { schedule: { kind: 'draft' } },
    })
    expect(
      parseEditorForm(
        editorValuesOf(form({ schedule: 'now', audience: 'b0f3c4f2-3a3c-4e4e-9d9d-1a2b3c4d5e6f' })),
        now,
      ),
    ).toMatchObject({
      ok: true,
      draft: { schedule: { kind: 'now' }, listId: 'b0f3c4f2-3a3c-4e4e-9d9d-1a2b3c4d5e6f' },
    })
  })

  it('reads From and Reply-To, normalised; empty means the default', () => {
    expect(
      parseEditorForm(
        editorValuesOf(form({ schedule: 'draft', from: 'News <news@Example.com>', replyTo: '' })),
        now,
      ),
    ).toMatchObject({ ok: true, draft: { sender: { from: '"News" <news@example.com>', replyTo: null } } })
    expect(parseEditorForm(editorValuesOf(form({ schedule: 'draft' })), now)).toMatchObject({
      ok: true,
      draft: { sender: { from: null, replyTo: null } },
    })
  })

  it('refuses a From with a line break or a 201-character name beside the field', () => {
    const crlf = parseEditorForm(
      editorValuesOf(form({ schedule: 'draft', from: 'a@b.example\r\nBcc: c@d.example' })),
      now,
    )
    expect(crlf).toMatchObject({
      ok: false,
      state: { errors: { from: expect.stringContaining('single line') } },
    })
    const long = parseEditorForm(
      editorValuesOf(form({ schedule: 'draft', from: `${'n'.repeat(201)} <a@b.example>`, replyTo: 'x' })),
      now,
    )
    expect(long).toMatchObject({
      ok: false,
      state: {
        errors: { from: expect.stringContaining('200'), replyTo: expect.stringContaining('address') },
      },
    })
  })

  it('shows a 422 about the From beside the field', () => {
    const values = editorValuesOf(form({ from: 'news@pending.example' }))
    const unverified = new AppError('unprocessable', 'from is on pending.example, which is not verified', {
      details: [{ path: 'from', message: 'is on pending.example, which is not verified' }],
    })
    expect(stateFromError(values, unverified)).toMatchObject({
      errors: { from: 'is on pending.example, which is not verified' },
    })
  })

  it('shows use-case errors next to the fields they name', () => {
    const values = editorValuesOf(form({}))
    const empty = new AppError('unprocessable', 'The audience is empty', {
      details: [{ path: 'audience', message: 'has no recipients' }],
    })
    expect(stateFromError(values, empty)).toMatchObject({
      errors: { audience: 'has no recipients' },
      formError: 'The audience is empty',
    })
  })
})
