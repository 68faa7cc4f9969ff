import { randomBytes } from 'node:crypto'

/**
 * A key prefix of a test's own: BullMQ queues and limiter keys under it cannot collide with another
 * test file running at the same time on the same Redis.
 */
export function testRedisPrefix(label = 't'): string {
  return `fl-test-${label}-${randomBytes(4).toString('hex')}`
}
