import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const PRIORITY_MODULE = fileURLToPath(new URL('./priority.ts', import.meta.url))

/** Each thread's nice, from /proc (field 19 of its stat, after the command's parentheses). */
function threadNices(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])]
    } catch {
      return [] // the thread ended between the listing and the read
    }
  })
}

describe.runIf(existsSync('/proc/self/task'))('applyNice on a real process', () => {
  it('lowers every thread of the process, not only the main one (V8 starts its threads first)', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const { applyNice } = await import(${JSON.stringify(PRIORITY_MODULE)})
         applyNice(10, { info() {}, warn(fields) { console.error(JSON.stringify(fields)) } }, {})
         console.log('niced')
         setInterval(() => {}, 1000)`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    )
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('niced')) resolve()
        })
        child.once('exit', (code) => reject(new Error(`the child exited (${code}) before it niced itself`)))
      })
      const nices = threadNices(child.pid as number)
      expect(nices.length).toBeGreaterThan(1)
      expect(new Set(nices)).toEqual(new Set([10]))
    } finally {
      child.kill('SIGKILL')
    }
  })
})
