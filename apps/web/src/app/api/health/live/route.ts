import { nextRoute } from '@/server/next-route'
import { API_ROUTES } from '@/server/routes'

export const dynamic = 'force-dynamic'

/** 200 while the process runs; says nothing about dependencies (that is /api/health/ready). */
export const GET = nextRoute(API_ROUTES.healthLive)
