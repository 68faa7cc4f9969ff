import { describe, expect, it } from 'vitest'
import { detectDelimiter } from './detect-delimiter'

describe('detectDelimiter', () => {
  it.each([
    ['email,name\na@b.test,A\n', ','],
    ['name;email\nAnn;ann@example.test\nBo;bo@example.test\n', ';'],
    ['email\tname\tcity\na@b.test\tA\tHanoi\n\n', '\t'],
    ['email;name\n"x, y";Z\n', ';'],
    // One column, or a delimiter we do not split on: a comma, and the header check explains.
    ['email|name\na@b.test|A\n', ','],
    ['email\na@b.test\n', ','],
  ])('%j → %j', (sample, expected) => {
    expect(detectDelimiter(sample)).toBe(expected)
  })
})
