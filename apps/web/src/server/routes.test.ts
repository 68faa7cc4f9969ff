import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { API_ROUTES } from './routes'

const appDir = fileURLToPath(new URL('../app', import.meta.url))

/** `/api/v1/messages/:id` → `src/app/api/v1/messages/[id]/route.ts` */
const routeFileOf = (path: string) =>
  join(
    appDir,
    ...path
      .split('/')
      .slice(1)
      .map((segment) => (segment.startsWith(':') ? `[${segment.slice(1)}]` : segment)),
    'route.ts',
  )

describe('the route table', () => {
  it.each(Object.entries(API_ROUTES))(
    '%s has a Next.js route file that serves it from the table',
    (key, route) => {
      // Under `next dev` (and anything else that runs the app through Next.js alone) the route file is
      // the only way in; the web entry's fast path answers the same table before Next.js sees it.
      const file = routeFileOf(route.path)
      expect(existsSync(file), file).toBe(true)
      const source = readFileSync(file, 'utf8')
      expect(source).toContain(`export const ${route.method} = nextRoute(API_ROUTES.${key})`)
    },
  )

  it('has one entry per method and path', () => {
    const keys = Object.values(API_ROUTES).map((route) => `${route.method} ${route.path}`)
    expect(new Set(keys).size).toBe(keys.length)
  })
})
