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
  // The message's first line, and where in the project it was thrown: for a hook that timed out vitest
  // reports only "STACK_TRACE_ERROR", and the frame names the hook.
  const firstLine = (text: string | undefined) => {
    const [message = '', ...stack] = (text ?? '').split('\n')
    const frame = stack
      .map((line) => line.trim())
      .find((line) => line.includes(root) && !line.includes('node_modules'))
    const where = frame?.match(/\(?(?:file:\/\/)?([^()\s]+:\d+:\d+)\)?$/)?.[1]
    return `${message.slice(0, 300)}${where ? ` (${relative(root, where)})` : ''}`
  }
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
