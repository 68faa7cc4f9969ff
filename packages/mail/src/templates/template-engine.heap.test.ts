import { describe, expect, it } from 'vitest'
import { renderCampaignMessage } from '../campaign/render-campaign-message'
import { findUnknownVariables, templateSyntaxError } from '../campaign/variables'
import { TEMPLATE_CACHE_LIMITS, templateCacheStats } from './template-engine'

/**
 * What a tenant posting many distinct large campaign bodies does to the web process: each body is
 * checked (the API and the editor), looked through for unknown variables and rendered (the preview).
 * Runs in the `heap` project, with `--expose-gc`, so heapUsed after a forced collection is what the
 * process keeps, not garbage waiting for the next collection.
 */
/**
 * 400 is over thirty times what the cache holds (a dozen of these by its estimate): a cache that kept
 * every one would hold at least 80 MB of their text alone, more than the bound before a single parse
 * tree. (2,000 took five minutes of CI's two loaded cores for no more certainty.)
 */
const TEMPLATES = 400
const TEMPLATE_CHARS = 200 * 1024
/** Room for a full cache (32 MB by its estimate) and noise. */
const MAX_GROWTH_BYTES = 64 * 1024 * 1024
const contact = { email: 'jane@example.com', name: 'Jane', attributes: { city: 'Hanoi' } }

function collect(): number {
  const gc = globalThis.gc
  if (gc === undefined)
    throw new Error('global.gc is missing: run this file in the heap project (--expose-gc)')
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

/** A distinct ~200 KB body: every paragraph carries the template's number, with a tag every paragraph. */
function largeTemplate(index: number): string {
  const paragraph = `<p>Issue ${index}: hello {{name}} from {{city}}, ${'lorem ipsum dolor sit amet '.repeat(6)}</p>\n`
  return paragraph.repeat(Math.ceil(TEMPLATE_CHARS / paragraph.length))
}

describe('the template parse cache', () => {
  it('keeps the heap flat while 400 distinct 200 KB templates are parsed and rendered', () => {
    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
    const before = collect()
    const samples: string[] = []
    let growth = 0
    for (let index = 0; index < TEMPLATES; index++) {
      const html = largeTemplate(index)
      expect(templateSyntaxError(html)).toBeNull()
      expect(findUnknownVariables(html, contact)).toEqual([])
      const rendered = renderCampaignMessage({
        campaign: { subject: `Issue ${index} for {{name}}`, html, text: 'Hi {{name}}' },
        contact,
        unsubscribeUrl: 'https://mail.example.com/u/token',
      })
      expect(rendered.html).toContain(`Issue ${index}: hello Jane from Hanoi`)
      if ((index + 1) % 50 === 0) {
        growth = collect() - before
        samples.push(`${index + 1}: +${mb(growth)}`)
        // Stop early on a leak: without a bound, 400 of them would take most of a gigabyte from the machine.
        if (growth > MAX_GROWTH_BYTES) break
      }
    }
    expect(growth, `heap growth after N templates: ${samples.join(', ')}`).toBeLessThan(MAX_GROWTH_BYTES)
    expect(samples).toHaveLength(TEMPLATES / 50)
    const cached = templateCacheStats()
    expect(cached.templates).toBeGreaterThan(0)
    expect(cached.estimatedBytes).toBeLessThanOrEqual(TEMPLATE_CACHE_LIMITS.maxBytes)
    console.info(`heap growth after N templates: ${samples.join(', ')}`)
  })
})
