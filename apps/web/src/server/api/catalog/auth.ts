import { handleAuth } from '../auth'
import { declareRoute } from './define'

/** better-auth's own endpoints (sign-in, sign-out, session); the pages use server actions instead. */
export const authRoutes = {
  authGet: declareRoute({
    method: 'GET',
    path: '/api/auth/*path',
    bodyLimit: 'auth',
    handle: (request, _, deps) => handleAuth(request, deps),
  }),
  authPost: declareRoute({
    method: 'POST',
    path: '/api/auth/*path',
    bodyLimit: 'auth',
    handle: (request, _, deps) => handleAuth(request, deps),
  }),
}
