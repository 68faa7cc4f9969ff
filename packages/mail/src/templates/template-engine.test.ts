import { describe, expect, it } from 'vitest'
import {
  compileTemplate,
  isCompiledCached,
  renderCompiled,
  renderTemplate,
  templateCacheStats,
} from './template-engine'

const template = 'Hi {{name}}{{#items}}, {{.}}{{/items}}{{^items}} (none){{/items}} <{{{raw}}}>'
const view = { name: 'Zoë & co', items: ['a', 'b'], raw: '<b>' }

describe('compileTemplate', () => {
  it('renders as renderTemplate does, with and without an escape of its own', () => {
    const compiled = compileTemplate(template)
    expect(renderCompiled(compiled, view)).toBe(renderTemplate(template, view))
    const plain = { escape: (value: unknown) => String(value) }
    expect(renderCompiled(compiled, view, plain)).toBe(renderTemplate(template, view, plain))
    expect(renderCompiled(compiled, { name: 'x' })).toBe('Hi x (none) <>')
  })

  it('finds its parse tree in the cache under the key mustache uses (no second entry)', () => {
    const text = `compiled once ${Math.random()} {{name}}`
    const before = templateCacheStats().templates
    const compiled = compileTemplate(text)
    expect(isCompiledCached(compiled)).toBe(true)
    renderTemplate(text, view)
    renderCompiled(compiled, view)
    expect(templateCacheStats().templates).toBe(before + 1)
  })

  it('throws mustache error for a template that cannot be parsed', () => {
    expect(() => compileTemplate('{{#open}} never closed')).toThrow(/Unclosed section/)
  })
})
