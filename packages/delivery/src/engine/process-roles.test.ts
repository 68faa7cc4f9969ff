import { describe, expect, it } from 'vitest'
import { processRoles } from './process-roles'

describe('processRoles', () => {
  it('makes the bulk-only process (split layout: worker) a backstop relay and the pacer’s standby', () => {
    expect(processRoles(['bulk'])).toEqual({ relayBackstopOnly: true, pacer: 'standby' })
  })

  it('lets the process serving the transactional lanes without bulk (worker-tx) lead the pacer', () => {
    expect(processRoles(['critical', 'default'])).toEqual({ relayBackstopOnly: false, pacer: 'lead' })
    expect(processRoles(['critical'])).toEqual({ relayBackstopOnly: false, pacer: 'lead' })
    expect(processRoles(['default'])).toEqual({ relayBackstopOnly: false, pacer: 'lead' })
  })

  it('runs both in full in a process with every lane, a transactional lane and bulk, or none', () => {
    for (const lanes of [['critical', 'default', 'bulk'], ['default', 'bulk'], []] as const)
      expect(processRoles(lanes)).toEqual({ relayBackstopOnly: false, pacer: 'lead' })
  })
})
