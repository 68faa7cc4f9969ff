import { describe, expect, it } from 'vitest'
import { buildOpenApiDocument } from '../../catalog'

const document = buildOpenApiDocument({ now: new Date('2026-12-03T12:00:00Z') })

type Property = { type?: unknown; description?: string }
const properties = (name: string) =>
  (document.components?.schemas?.[name] as { properties?: Record<string, Property> } | undefined)
    ?.properties ?? {}

describe('from and replyTo in the OpenAPI document', () => {
  it.each([
    'TemplateMessageRequest',
    'CustomMessageRequest',
    'CampaignRequest',
    'NewTemplateRequest',
    'TemplateChangeRequest',
  ])('%s takes from and replyTo, described', (name) => {
    const { from, replyTo } = properties(name)
    expect(from?.description).toMatch(/verified sending domains \(else 422\)/)
    expect(replyTo?.description).toContain('Reply-To')
  })

  it('answers them on templates and campaigns', () => {
    const schemas = document.components?.schemas ?? {}
    const answer = (path: string) => {
      const text = JSON.stringify(document.paths?.[path]?.get?.responses?.['200'] ?? null)
      const ref = /#\/components\/schemas\/([A-Za-z]+)/.exec(text)?.[1]
      return ref ? JSON.stringify(schemas[ref]) : text
    }
    for (const path of ['/api/v1/campaigns/{id}', '/api/v1/templates/{ref}']) {
      expect(answer(path), path).toContain('"from"')
      expect(answer(path), path).toContain('"replyTo"')
    }
  })
})
