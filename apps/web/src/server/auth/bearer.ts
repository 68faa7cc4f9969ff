/** The token of `Authorization: Bearer <token>` (scheme case-insensitive), or null when absent or malformed. */
export function bearerToken(request: Request): string | null {
  const header = request.headers.get('authorization')
  if (header === null) return null
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header)
  return match?.[1] ?? null
}
