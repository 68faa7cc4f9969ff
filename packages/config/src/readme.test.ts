import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { envSchema } from './env'

describe('README configuration table', () => {
  it('documents every variable the schema reads', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8')
    const undocumented = Object.keys(envSchema.shape).filter((name) => !readme.includes(`\`${name}\``))
    expect(undocumented).toEqual([])
  })
})
