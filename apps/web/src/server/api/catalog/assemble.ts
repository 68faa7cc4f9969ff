import { type ApiRoute, type RouteDeclaration, toApiRoute } from './define'

/** A resource's routes: each declaration under the name the table knows it by. */
// biome-ignore lint/suspicious/noExplicitAny: a group holds declarations of many path types
export type RouteGroup = Record<string, RouteDeclaration<any>>

type UnionToIntersection<U> = (U extends unknown ? (union: U) => void : never) extends (
  intersection: infer I,
) => void
  ? I
  : never

type Merged<Groups extends readonly RouteGroup[]> = UnionToIntersection<Groups[number]>

/** The catalog: every declaration by name, its path type kept for the handler's parameters. */
export type Catalog<Groups extends readonly RouteGroup[]> = {
  [Name in keyof Merged<Groups>]: Merged<Groups>[Name]
}

/** The route table built from a catalog: the same names, each an entry the router can answer. */
export type RouteTable<Groups extends readonly RouteGroup[]> = {
  [Name in keyof Merged<Groups>]: Merged<Groups>[Name] extends { path: infer Path extends string }
    ? ApiRoute<Path>
    : never
}

/**
 * Joins the resources' groups into one catalog, refusing (at startup, and in `catalog.test.ts`) a
 * name or a method and path declared twice: a spread would let the later one win silently, and the
 * router would answer only the first.
 */
export function assembleCatalog<const Groups extends readonly RouteGroup[]>(groups: Groups): Catalog<Groups> {
  const catalog: RouteGroup = {}
  const names = new Map<string, string>()
  for (const group of groups) {
    for (const [name, declaration] of Object.entries(group)) {
      const key = `${declaration.method} ${declaration.path}`
      if (name in catalog) throw new Error(`route name ${name} is declared twice`)
      const taken = names.get(key)
      if (taken !== undefined) throw new Error(`${key} is declared twice: ${taken} and ${name}`)
      names.set(key, name)
      catalog[name] = declaration
    }
  }
  return catalog as Catalog<Groups>
}

/** The route table of a catalog, in declaration order. */
export function buildRouteTable<const Groups extends readonly RouteGroup[]>(
  catalog: Catalog<Groups>,
): RouteTable<Groups> {
  const table: Record<string, ApiRoute> = {}
  for (const [name, declaration] of Object.entries(catalog as RouteGroup)) {
    table[name] = toApiRoute(declaration)
  }
  return table as RouteTable<Groups>
}
