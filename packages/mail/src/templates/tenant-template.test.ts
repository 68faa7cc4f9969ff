import { describe, expect, it } from 'vitest'
import { renderContent } from './render-content'
import { renderTenantTemplate, type TenantTemplate } from './tenant-template'

const welcome: TenantTemplate = {
  slug: 'welcome',
  subject: 'Welcome, {{name}}!',
  html: '<h1>Hello {{name}}</h1><p>Your plan: {{plan.title}}</p>{{#items}}<li>{{label}}</li>{{/items}}',
  text: null,
}

function ok(template: TenantTemplate, variables: Record<string, unknown>) {
  const outcome = renderTenantTemplate(template, variables)
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.issues))
  return outcome.message
}

describe('tenant templates', () => {
  it('escapes variables in HTML, keeps them plain in the subject, and derives the text part', () => {
    const message = ok(welcome, { name: 'Tom & <Jerry>', plan: { title: 'Pro' }, items: [{ label: 'a' }] })
    expect(message.subject).toBe('Welcome, Tom & <Jerry>!')
    expect(message.html).toContain('Hello Tom &amp; &lt;Jerry&gt;')
    expect(message.html).toContain('<li>a</li>')
    expect(message.text).toContain('Hello Tom & <Jerry>')
    expect(message.text).toContain('Your plan: Pro')
    expect(message.template).toBe('welcome')
  })

  it('uses the stored text part when there is one, without HTML escaping', () => {
    const message = ok({ ...welcome, text: 'Hi {{name}}' }, { name: 'A & B', plan: { title: 'x' } })
    expect(message.text).toBe('Hi A & B')
  })

  it('requires every variable used outside a section, naming it', () => {
    const outcome = renderTenantTemplate(welcome, { name: 'Ann' })
    expect(outcome).toEqual({
      ok: false,
      issues: [{ path: 'variables.plan.title', message: 'is required by template "welcome"' }],
    })
  })

  it('refuses a line break in a variable that goes into the subject', () => {
    const outcome = renderTenantTemplate(welcome, { name: 'Ann\r\nBcc: x@evil.test', plan: { title: 'x' } })
    expect(outcome.ok).toBe(false)
    if (!outcome.ok) expect(outcome.issues[0]?.path).toBe('variables.name')
  })

  it('allows line breaks in variables used only in the body', () => {
    const message = ok(welcome, { name: 'Ann', plan: { title: 'line 1\nline 2' } })
    expect(message.html).toContain('line 1\nline 2')
  })

  it('reports a template that mustache cannot parse', () => {
    const outcome = renderTenantTemplate({ ...welcome, html: '{{#open}} never closed' }, { name: 'x' })
    expect(outcome.ok).toBe(false)
    if (!outcome.ok) expect(outcome.issues[0]).toMatchObject({ path: 'template' })
  })
})

describe('renderContent', () => {
  const context = {
    loadTenantTemplate: async (slug: string) => (slug === 'welcome' ? welcome : null),
  }

  it('names an unknown template', async () => {
    const outcome = await renderContent({ kind: 'template', template: 'nope', variables: {} }, context)
    expect(outcome).toEqual({
      ok: false,
      issues: [
        {
          path: 'template',
          message:
            'unknown template "nope": use otp, password-reset, verify-email or one of your template slugs',
        },
      ],
    })
  })

  it('prefers the built-in otp over a tenant template of the same name', async () => {
    const shadowing = { loadTenantTemplate: async () => ({ ...welcome, slug: 'otp' }) }
    const outcome = await renderContent(
      { kind: 'template', template: 'otp', variables: { code: '1234' } },
      shadowing,
    )
    expect(outcome.ok && outcome.message.subject).toBe('Your verification code')
  })

  it('asks for the sender’s name only for built-in mail without an appName', async () => {
    let asked = 0
    const named = {
      ...context,
      senderName: async () => {
        asked += 1
        return 'Bakery Bliss'
      },
    }
    const otp = await renderContent({ kind: 'template', template: 'otp', variables: { code: '1234' } }, named)
    expect(otp.ok && otp.message.subject).toBe('Your Bakery Bliss verification code')
    await renderContent({ kind: 'template', template: 'otp', variables: { code: '1', appName: 'X' } }, named)
    await renderContent({ kind: 'custom', subject: 'Hi', text: 'plain' }, named)
    expect(asked).toBe(1)
  })

  it('generates the text part of custom HTML content, and leaves text-only content without HTML', async () => {
    const html = await renderContent(
      { kind: 'custom', subject: 'Hi', html: '<p>Hello <b>there</b></p>' },
      context,
    )
    expect(html.ok && html.message).toMatchObject({ subject: 'Hi', text: 'Hello there', template: null })
    const text = await renderContent({ kind: 'custom', subject: 'Hi', text: 'plain' }, context)
    expect(text.ok && text.message).toMatchObject({ html: null, text: 'plain' })
  })
})
