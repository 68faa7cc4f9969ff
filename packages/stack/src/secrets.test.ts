import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { loadOrCreateSecrets } from './secrets'

describe('loadOrCreateSecrets', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fairlane-secrets-'))
  afterEach(() => {
    for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { force: true })
  })

  it('keeps what it generated, and leaves an unchanged file alone (launchers starting at once read it)', () => {
    const file = join(dir, 'secrets.json')
    const first = loadOrCreateSecrets(file, {})
    const past = new Date('2020-01-01T00:00:00Z')
    utimesSync(file, past, past)

    const second = loadOrCreateSecrets(file, { ADMIN_TOKEN: 'from-the-environment-0123456789' })
    expect(second).toEqual({ ...first, ADMIN_TOKEN: 'from-the-environment-0123456789' })
    expect(statSync(file).mtimeMs).toBe(past.getTime())
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(first)
    expect(readdirSync(dir)).toEqual(['secrets.json'])
  })
})
