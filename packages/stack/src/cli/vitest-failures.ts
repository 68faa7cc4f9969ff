import { existsSync, readFileSync } from 'node:fs'
import { relative } from 'node:path'

interface VitestJsonReport {
  testResults?: {
    name: string
    status: string
    message?: string
    assertionResults?: { fullName: string; status: string; failureMessages?: string[] }[]
  }[]
}

/**
 * Each failed vitest test (or a file that failed before its tests ran) with its error's first line,
 * from vitest's JSON report: `pnpm test` prints them under its summary, where CI's tail shows them.
 */
export function vitestFailures(reportPath: string, root: string): string[] {
  if (!existsSync(reportPath)) return ['  (vitest wrote no report: it stopped before the end of its run)']
  const report = JSON.parse(readFileSync(reportPath, 'utf8')) as VitestJsonReport
  const firstLine = (text: string | undefined) => (text ?? '').split('\n', 1)[0]?.slice(0, 300) ?? ''
  const lines: string[] = []
  for (const file of report.testResults ?? []) {
    const name = relative(root, file.name)
    const failedTests = (file.assertionResults ?? []).filter((test) => test.status === 'failed')
    for (const test of failedTests) {
      lines.push(`  failed  ${name} › ${test.fullName}`, `          ${firstLine(test.failureMessages?.[0])}`)
    }
    if (failedTests.length === 0 && file.status === 'failed') {
      lines.push(`  failed  ${name}`, `          ${firstLine(file.message)}`)
    }
  }
  return lines
}
