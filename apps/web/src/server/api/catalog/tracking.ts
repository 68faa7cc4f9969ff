import { clickRedirect, openPixel } from '../../tracking/tracking-routes'
import { declareRoute } from './define'

/** Open and click tracking (public; the signed token is the credential): answered by the route table, not by Next.js, because every open of every tracked mail comes this way. Outside `/api`, their bodies have the pages' cap, as every path Next.js would answer. */
export const trackingRoutes = {
  trackOpen: declareRoute({
    method: 'GET',
    path: '/t/o/:token',
    bodyLimit: 'pages',
    handle: (request, { token }, deps) => openPixel(request, token, deps.tracking),
  }),
  trackClick: declareRoute({
    method: 'GET',
    path: '/t/c/:token',
    bodyLimit: 'pages',
    handle: (request, { token }, deps) => clickRedirect(request, token, deps.tracking),
  }),
}
