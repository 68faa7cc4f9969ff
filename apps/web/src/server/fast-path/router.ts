import type { ApiRoute, HttpMethod } from '../routes'

export interface RouteMatch {
  route: ApiRoute
  params: Record<string, string>
}

export type Router = (method: string, url: string) => RouteMatch | null

interface CompiledRoute {
  route: ApiRoute
  /** A literal segment, or `{ param }` for `:param`. */
  segments: (string | { param: string })[]
}

/**
 * Matches a request line against the route table, claiming only what it knows for certain: the exact
 * method and a path whose literal segments are spelled exactly as in the table. Everything else
 * (another method, a trailing slash, `//`, dot segments, an undecodable parameter, `/api/auth/*`,
 * pages) returns null and goes to Next.js, which answers it as it always has (405, redirect, 404,
 * or its own route).
 */
export function createRouter(routes: readonly ApiRoute[]): Router {
  const byMethod = new Map<string, CompiledRoute[]>()
  for (const route of routes) {
    const compiled: CompiledRoute = {
      route,
      segments: route.path
        .split('/')
        .slice(1)
        .map((segment) => (segment.startsWith(':') ? { param: segment.slice(1) } : segment)),
    }
    const list = byMethod.get(route.method) ?? []
    list.push(compiled)
    byMethod.set(route.method, list)
  }

  return (method, url) => {
    const candidates = byMethod.get(method as HttpMethod)
    if (!candidates || !url.startsWith('/api/')) return null
    const queryAt = url.indexOf('?')
    const path = queryAt === -1 ? url : url.slice(0, queryAt)
    const segments = path.split('/').slice(1)
    for (const candidate of candidates) {
      const params = matchSegments(candidate.segments, segments)
      if (params) return { route: candidate.route, params }
    }
    return null
  }
}

function matchSegments(
  pattern: CompiledRoute['segments'],
  segments: string[],
): Record<string, string> | null {
  if (pattern.length !== segments.length) return null
  const params: Record<string, string> = {}
  for (let index = 0; index < pattern.length; index++) {
    const expected = pattern[index] as CompiledRoute['segments'][number]
    const actual = segments[index] as string
    if (typeof expected === 'string') {
      if (actual !== expected) return null
      continue
    }
    if (actual === '' || actual === '.' || actual === '..') return null
    try {
      params[expected.param] = decodeURIComponent(actual)
    } catch {
      return null // malformed percent-encoding: Next.js answers it
    }
  }
  return params
}
