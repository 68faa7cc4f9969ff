import { AppError } from '@fairlane/core/errors'
import { describe, expect, it } from 'vitest'
import { emptyTemplateValues } from './editor-state'
import { templateBodyOf, templateStateFromError, templateValuesOf } from './template-form'

describe('the template form', () => {
  it('reads the fields and turns them into the API body', () => {
    const form = new FormData()
    form.set('slug', ' welcome ')
    form.set('name', '')
    form.set('subject', 'Hi')
    form.set('html', '<p>x</p>')
    form.set('from', 'News <news@example.com>')
    const values = templateValuesOf(form)
    expect(values).toEqual({
      slug: 'welcome',
      name: '',
      subject: 'Hi',
      html: '<p>x</p>',
      text: '',
      from: 'News <news@example.com>',
      replyTo: '',
    })
    expect(templateBodyOf(values, 'create')).toEqual({
      slug: 'welcome',
      name: undefined,
      subject: 'Hi',
      html: '<p>x</p>',
      text: '',
      from: 'News <news@example.com>',
      replyTo: '',
    })
    expect(templateBodyOf(values, 'update')).not.toHaveProperty('slug')
  })

  it('puts each refusal next to its field, and an unnamed one on the form', () => {
    const values = emptyTemplateValues()
    const named = new AppError('conflict', 'taken', {
      details: [{ path: 'slug', message: 'is already used' }],
    })
    expect(templateStateFromError(values, named)).toEqual({
      values,
      errors: { slug: 'is already used' },
      formError: undefined,
    })
    expect(templateStateFromError(values, new AppError('not_found', 'No template')).formError).toBe(
      'No template',
    )
  })
})
