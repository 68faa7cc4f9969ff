import { bulkDiscardDeadLetters, bulkReplayDeadLetters } from '../admin/bulk-dead-letters'
import { getDeadLetter } from '../admin/dead-letter-detail'
import { discardDeadLetter } from '../admin/discard-dead-letter'
import { listDeadLetters } from '../admin/list-dead-letters'
import { replayDeadLetter } from '../admin/replay-dead-letter'
import { declareRoute } from './define'

/** The dead-letter queue: list, read, replay and discard, one at a time or in bulk. */
export const adminDeadLetterRoutes = {
  listDeadLetters: declareRoute({
    method: 'GET',
    path: '/api/admin/dlq',
    bodyLimit: 'api',
    handle: (request, _, deps) => listDeadLetters(request, deps.admin),
  }),
  discardDeadLetter: declareRoute({
    method: 'DELETE',
    path: '/api/admin/dlq/:id',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => discardDeadLetter(request, id, deps.admin),
  }),
  replayDeadLetter: declareRoute({
    method: 'POST',
    path: '/api/admin/dlq/:id/replay',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => replayDeadLetter(request, id, deps.admin),
  }),
  getDeadLetter: declareRoute({
    method: 'GET',
    path: '/api/admin/dlq/:id',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => getDeadLetter(request, id, deps.admin),
  }),
  bulkReplayDeadLetters: declareRoute({
    method: 'POST',
    path: '/api/admin/dlq/replay',
    bodyLimit: 'api',
    handle: (request, _, deps) => bulkReplayDeadLetters(request, deps.admin),
  }),
  bulkDiscardDeadLetters: declareRoute({
    method: 'POST',
    path: '/api/admin/dlq/discard',
    bodyLimit: 'api',
    handle: (request, _, deps) => bulkDiscardDeadLetters(request, deps.admin),
  }),
}
