import type { ApiRoute } from '../routes'

/**
 * What the router says about a request line:
 * - `route`: a table entry answers it, with its decoded parameters;
 * - `not-found`: an `/api` path no entry has (404);
 * - `method-not-allowed`: an `/api` path some entries have, but not with this method (405, `allow`);
 * - `null`: not an `/api` or `/t/` path at all: pages, server actions, `/u/:token` — Next.js's.
 */
export type RouteLookup =
  | { kind: 'route'; route: ApiRoute; params: Record<string, string> }
  | { kind: 'not-found' }
  | { kind: 'method-not-allowed'; allow: string[] }

export type RouteMatch = Extract<RouteLookup, { kind: 'route' }>

export type Router = (method: string, url: string) => RouteLookup | null

type Segment = string | { param: string } | { rest: string }

interface CompiledRoute {
  route: ApiRoute
  /** A literal segment, `{ param }` for `:param`, `{ rest }` for a trailing `*rest` (one or more segments). */
  segments: Segment[]
}

/** Everything under this prefix belongs to the route table: nothing there reaches Next.js. */
export const API_PREFIX = '/api/'
/** Open and click tracking (`/t/o/:token`, `/t/c/:token`): the route table's too, never Next.js's. */
export const TRACKING_PREFIX = '/t/'

/**
 * Matches a request line against the route table. Every path under `/api/` is the table's: a path
 * whose literal segments are spelled exactly as in an entry matches it; anything else there (a trailing
 * slash, `//`, dot segments, an undecodable parameter, another spelling) is a 404, and a known path
 * with another method a 405. Paths outside `/api/` are left to Next.js.
 */
export function createRouter(routes: readonly ApiRoute[]): Router {
  const compiled = compile(routes)

  return (method, url) => {
    const path = tablePath(url)
    if (path === null) return null
    const segments = path.split('/').slice(1)
    // HEAD is GET without the body (Node's response drops it).
    const wanted = method === 'HEAD' ? 'GET' : method
    const allow = new Set<string>()
    for (const candidate of compiled) {
      const params = matchSegments(candidate.segments, segments)
      if (!params) continue
      if (candidate.route.method === wanted) return { kind: 'route', route: candidate.route, params }
      allow.add(candidate.route.method)
    }
    if (allow.size === 0) return { kind: 'not-found' }
    return { kind: 'method-not-allowed', allow: [...allow].sort() }
  }
}

/**
 * Every route at a path, whatever its method (the body caps are per path: a request is capped before
 * its method is looked at); `null` for a path outside the table's, as the router says.
 */
export function createPathIndex(routes: readonly ApiRoute[]): (url: string) => ApiRoute[] | null {
  const compiled = compile(routes)
  return (url) => {
    const path = tablePath(url)
    if (path === null) return null
    const segments = path.split('/').slice(1)
    return compiled
      .filter((candidate) => matchSegments(candidate.segments, segments))
      .map(({ route }) => route)
  }
}

function compile(routes: readonly ApiRoute[]): CompiledRoute[] {
  return routes.map((route) => ({
    route,
    segments: route.path
      .split('/')
      .slice(1)
      .map((segment): Segment => {
        if (segment.startsWith(':')) return { param: segment.slice(1) }
        if (segment.startsWith('*')) return { rest: segment.slice(1) }
        return segment
      }),
  }))
}

/** The request's path without its query when it is the table's (`/api`, `/api/…`, `/t/…`), else null. */
function tablePath(url: string): string | null {
  const queryAt = url.indexOf('?')
  const path = queryAt === -1 ? url : url.slice(0, queryAt)
  if (!path.startsWith(API_PREFIX) && path !== '/api' && !path.startsWith(TRACKING_PREFIX)) return null
  return path
}

function matchSegments(pattern: Segment[], segments: string[]): Record<string, string> | null {
  const last = pattern[pattern.length - 1]
  const hasRest = last !== undefined && typeof last === 'object' && 'rest' in last
  if (hasRest ? segments.length < pattern.length : segments.length !== pattern.length) return null
  const params: Record<string, string> = {}
  for (let index = 0; index < pattern.length; index++) {
    const expected = pattern[index] as Segment
    if (typeof expected === 'string') {
      if (segments[index] !== expected) return null
      continue
    }
    if ('rest' in expected) {
      // The rest is handed on undecoded (better-auth routes on the URL itself).
      const rest = segments.slice(index)
      if (rest.some((segment) => segment === '' || segment === '.' || segment === '..')) return null
      params[expected.rest] = rest.join('/')
      return params
    }
    const actual = segments[index] as string
    if (actual === '' || actual === '.' || actual === '..') return null
    try {
      params[expected.param] = decodeURIComponent(actual)
    } catch {
      return null // malformed percent-encoding: no entry has that path
    }
  }
  return params
}
