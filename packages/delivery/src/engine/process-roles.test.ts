import { describe, expect, it } from 'vitest'
import { processRoles } from './process-roles'

describe('processRoles', () => {
  it('makes the bulk-only process (split layout: worker) a backstop relay and a pacer candidate', () => {
    expect(processRoles(['bulk'])).toEqual({ relayBackstopOnly: true, pacerCandidate: true })
  })

  it('keeps the pacer out of a process serving the transactional lanes without bulk (worker-tx)', () => {
    expect(processRoles(['critical', 'default'])).toEqual({ relayBackstopOnly: false, pacerCandidate: false })
    expect(processRoles(['critical'])).toEqual({ relayBackstopOnly: false, pacerCandidate: false })
    expect(processRoles(['default'])).toEqual({ relayBackstopOnly: false, pacerCandidate: false })
  })

  it('runs both in full in a process with every lane, a transactional lane and bulk, or none', () => {
    for (const lanes of [['critical', 'default', 'bulk'], ['default', 'bulk'], []] as const)
      expect(processRoles(lanes)).toEqual({ relayBackstopOnly: false, pacerCandidate: true })
  })
})
