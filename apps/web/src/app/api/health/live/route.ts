export const dynamic = 'force-dynamic'

/** 200 while the process runs; says nothing about dependencies (that is /api/health/ready). */
export function GET(): Response {
  return Response.json({ ok: true })
}
