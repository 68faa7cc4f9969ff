import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { vitestFailures } from './vitest-failures'

describe('vitestFailures', () => {
  const root = '/repo'
  const report = (body: unknown) => {
    const path = join(mkdtempSync(join(tmpdir(), 'vitest-report-')), 'vitest.json')
    writeFileSync(path, JSON.stringify(body))
    return path
  }

  it('names each failed test with its error’s first line, and a file that failed without tests', () => {
    const path = report({
      testResults: [
        {
          name: '/repo/apps/worker/src/a.int.test.ts',
          status: 'failed',
          assertionResults: [
            { fullName: 'a passes', status: 'passed', failureMessages: [] },
            {
              fullName: 'a > times out',
              status: 'failed',
              failureMessages: [
                'Error: STACK_TRACE_ERROR\n    at afterEach (file:///repo/node_modules/@vitest/runner/dist/x.js:752:106)\n    at /repo/apps/worker/src/a.int.test.ts:42:1\n    at async y (file:///repo/node_modules/vitest/dist/z.js:1:2)',
              ],
            },
          ],
        },
        { name: '/repo/packages/db/src/b.test.ts', status: 'failed', message: 'SyntaxError: x\nmore' },
        { name: '/repo/packages/db/src/c.test.ts', status: 'passed', assertionResults: [] },
      ],
    })
    expect(vitestFailures(path, root)).toEqual([
      '  failed  apps/worker/src/a.int.test.ts › a > times out',
      '          Error: STACK_TRACE_ERROR (apps/worker/src/a.int.test.ts:42:1)',
      '  failed  packages/db/src/b.test.ts',
      '          SyntaxError: x',
    ])
  })

  it('says so when vitest wrote no report', () => {
    expect(vitestFailures('/nonexistent/vitest.json', root)).toEqual([
      '  (vitest wrote no report: it stopped before the end of its run)',
    ])
  })
})
