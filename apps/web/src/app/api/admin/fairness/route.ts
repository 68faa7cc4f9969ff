import { nextRoute } from '@/server/next-route'
import { API_ROUTES } from '@/server/routes'

export const dynamic = 'force-dynamic'

export const GET = nextRoute(API_ROUTES.fairness)
