import { describe, expect, it } from 'vitest'
import { QUEUE_NAMES, queuePrefix } from './names'

describe('queuePrefix', () => {
  it('gives each queue its own hash tag under QUEUE_PREFIX', () => {
    expect(queuePrefix('fairlane', 'critical')).toBe('fairlane:{critical}')
    expect(queuePrefix('fl-test-x', 'dead-letter')).toBe('fl-test-x:{dead-letter}')
  })

  it('puts every key BullMQ builds for a queue (`<prefix>:<name>:<suffix>`) under that one tag', () => {
    for (const name of QUEUE_NAMES) {
      const keys = ['wait', 'active', 'meta', 'events', 'marker', 'id', '42'].map(
        (suffix) => `${queuePrefix('fairlane', name)}:${name}:${suffix}`,
      )
      const tags = new Set(keys.map((key) => /\{([^}]+)\}/.exec(key)?.[1]))
      expect(tags).toEqual(new Set([name]))
    }
  })
})
