import { describe, expect, it } from 'vitest'
import type { AuthChecker, MessageAuth } from './auth'
import { AuthChecks, NOT_CHECKED, NOT_CHECKED_YET } from './auth-checks'
import type { StoredMessage } from './store'

const message = (id: string) => ({ id, auth: { dkim: 'none' } }) as StoredMessage
const client = { sender: 'a@shop.test', ip: '127.0.0.1' }

/** A checker whose answers the test releases one by one. */
function heldChecker() {
  const releases: Array<(auth: MessageAuth) => void> = []
  const checker: AuthChecker = {
    check: () => new Promise((resolve) => releases.push(resolve)),
  }
  return { checker, releases }
}

const tick = () => new Promise((resolve) => setImmediate(resolve))

describe('AuthChecks', () => {
  it('shows a placeholder until the check ends, and readers wait for it', async () => {
    const { checker, releases } = heldChecker()
    const checks = new AuthChecks(checker)
    const first = message('1')
    checks.start(first, Buffer.from(''), client)
    expect(first.auth).toBe(NOT_CHECKED_YET)
    await tick()

    let read = false
    const reader = checks.settled([message('other'), first], 5_000).then(() => {
      read = true
    })
    await tick()
    expect(read).toBe(false)
    releases[0]?.({ dkim: 'pass', dkimDomain: 'shop.test' })
    await reader
    expect(first.auth).toEqual({ dkim: 'pass', dkimDomain: 'shop.test' })
    expect(checks.size).toBe(0)
  })

  it('runs at most `concurrency` checks at once, the rest in order', async () => {
    const { checker, releases } = heldChecker()
    const checks = new AuthChecks(checker, 2)
    const messages = ['a', 'b', 'c', 'd'].map(message)
    for (const each of messages) checks.start(each, Buffer.from(''), client)
    await tick()
    expect(releases).toHaveLength(2)
    releases[0]?.({ dkim: 'pass' })
    await tick()
    await tick()
    expect(releases).toHaveLength(3)
    releases[1]?.({ dkim: 'pass' })
    releases[2]?.({ dkim: 'fail' })
    await tick()
    await tick()
    expect(releases).toHaveLength(4)
    releases[3]?.({ dkim: 'pass' })
    await checks.settled(messages, 5_000)
    expect(messages.map((each) => each.auth.dkim)).toEqual(['pass', 'pass', 'fail', 'pass'])
  })

  it('gives up waiting after the timeout', async () => {
    const { checker } = heldChecker()
    const checks = new AuthChecks(checker)
    const stuck = message('stuck')
    checks.start(stuck, Buffer.from(''), client)
    await checks.settled([stuck], 20)
    expect(stuck.auth).toBe(NOT_CHECKED_YET)
  })

  it('checks one signed message in `every`, the first of each run, and marks the others not checked', async () => {
    const { checker, releases } = heldChecker()
    const checks = new AuthChecks(checker, 16, 3)
    const sent = ['1', '2', '3', '4', '5', '6', '7'].map(message)
    for (const each of sent) checks.start(each, Buffer.from(''), client)
    await tick()
    expect(releases).toHaveLength(3)
    for (const release of releases) release({ dkim: 'pass', dkimDomain: 'shop.test' })
    await checks.settled(sent, 5_000)
    expect(sent.map((each) => each.auth.dkim === 'pass')).toEqual([
      true,
      false,
      false,
      true,
      false,
      false,
      true,
    ])
    expect(sent[1]?.auth).toBe(NOT_CHECKED)
    expect(() => new AuthChecks(checker, 16, 0)).toThrow(RangeError)
  })
})
