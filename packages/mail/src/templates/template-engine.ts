import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import Mustache from 'mustache'

/**
 * The only module that imports mustache (a Biome rule keeps it so). Mustache's own cache keeps every
 * template it ever parsed, keyed by the whole template text, for the life of the process; templates
 * here are tenant content (campaign bodies up to 512 KB, parsed on every preview keystroke), so one
 * tenant posting distinct bodies could grow the heap without end. This writer's cache is an LRU
 * bounded by count and by an estimate of the bytes its parse trees hold, keyed by a SHA-256 of the
 * text so the key does not hold a second copy of it. Parsing stays cached because it is slow (mustache
 * scans text a character at a time: ~50 ms for 200 KB), far slower than hashing the text again for
 * each recipient of a campaign.
 */
export const TEMPLATE_CACHE_LIMITS = {
  /** Parsed templates kept at most: a worker sends a few campaigns side by side, three templates each. */
  maxTemplates: 256,
  /** Estimated bytes of their parse trees: a dozen of the largest campaign bodies. */
  maxBytes: 32 * 1024 * 1024,
}

/** Rough heap cost of one span beyond its text: a small array and its numbers. */
const BYTES_PER_SPAN = 96

/** Mustache's parse tree: `[type, value, start, end, children?, …]` per span. */
export type TemplateSpans = ReturnType<typeof Mustache.parse>

/** How a value is written into the output: mustache's HTML escaping unless replaced. */
export interface RenderOptions {
  escape?: (value: unknown) => string
}

const cache = new LRUCache<string, TemplateSpans>({
  max: TEMPLATE_CACHE_LIMITS.maxTemplates,
  maxSize: TEMPLATE_CACHE_LIMITS.maxBytes,
})

/** Mustache's cache interface as the writer uses it (its typings say strings; the values are spans). */
interface SpanCache {
  get(key: string): TemplateSpans | undefined
  set(key: string, value: TemplateSpans): void
  clear(): void
}

const writer = new Mustache.Writer() as Mustache.Writer & { templateCache: SpanCache }
writer.templateCache = {
  // Mustache's key is the template text followed by the delimiters.
  get: (key) => cache.get(digest(key)),
  set: (key, value) => {
    const spans = compactSpans(value)
    cache.set(digest(key), value, { size: 2 * key.length + BYTES_PER_SPAN * spans })
  },
  clear: () => cache.clear(),
}

function digest(key: string): string {
  return createHash('sha256').update(key).digest('base64')
}

/**
 * Mustache builds each text span by appending one character at a time, which V8 keeps as a chain of
 * concatenations, about 30 bytes per character, until the string is first read whole. Kept that way
 * a 200 KB body would hold ~6 MB; flattening once here (slicing a fresh concatenation makes V8 copy
 * the text into one string) brings it back to the size of the text. Returns how many spans there are.
 */
function compactSpans(spans: TemplateSpans): number {
  let count = 0
  for (const span of spans) {
    count++
    if (span[0] === 'text' && typeof span[1] === 'string') span[1] = ` ${span[1]}`.slice(1)
    if (Array.isArray(span[4])) count += compactSpans(span[4] as TemplateSpans)
  }
  return count
}

/** Parses a template (throws mustache's error for an unclosed tag or section). */
export function parseTemplate(template: string): TemplateSpans {
  return writer.parse(template)
}

/** Renders a template with a view; no partials. */
export function renderTemplate(template: string, view: unknown, options: RenderOptions = {}): string {
  return writer.render(template, view, {}, options.escape ? { escape: options.escape } : undefined)
}

/**
 * A template rendered many times over (a campaign's, once per recipient): its cache key (a digest of
 * the whole text) is computed once here rather than on every render. The parse tree itself stays in
 * the bounded cache above; evicted, it is parsed again.
 */
export interface CompiledTemplate {
  readonly template: string
  readonly key: string
}

/** Parses the template (throws mustache's error for an unclosed tag or section) and keeps its key. */
export function compileTemplate(template: string): CompiledTemplate {
  parseTemplate(template)
  // Mustache's own cache key: the text and the delimiters it was parsed with.
  return { template, key: digest(`${template}:${Mustache.tags.join(':')}`) }
}

/** Renders a compiled template with a view; no partials. */
export function renderCompiled(
  compiled: CompiledTemplate,
  view: unknown,
  options: RenderOptions = {},
): string {
  const tokens = cache.get(compiled.key) ?? writer.parse(compiled.template)
  const config = options.escape ? { escape: options.escape } : undefined
  return writer.renderTokens(tokens, new Mustache.Context(view), {}, compiled.template, config)
}

/** Whether the compiled template's parse tree is in the cache under its key, for tests. */
export function isCompiledCached(compiled: CompiledTemplate): boolean {
  return cache.has(compiled.key)
}

/** What the cache holds now, for tests and diagnostics. */
export function templateCacheStats(): { templates: number; estimatedBytes: number } {
  return { templates: cache.size, estimatedBytes: cache.calculatedSize }
}
