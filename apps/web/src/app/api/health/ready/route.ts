import { nextRoute } from '@/server/next-route'
import { API_ROUTES } from '@/server/routes'

export const dynamic = 'force-dynamic'

/** 200 when PostgreSQL and Redis both answer in time; 503 naming the one that did not. */
export const GET = nextRoute(API_ROUTES.healthReady)
