import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PERMISSION_NAMES } from '@fairlane/core'
import { describe, expect, it } from 'vitest'
import { ACTION_PERMISSIONS } from './action-permissions'

const appDir = fileURLToPath(new URL('../../app/(app)', import.meta.url))

/** Every `'use server'` module under the tenant app, relative to it. */
function serverActionFiles(): string[] {
  return (readdirSync(appDir, { recursive: true }) as string[])
    .filter((file) => /\.tsx?$/.test(file))
    .filter((file) => /^\s*['"]use server['"]/.test(readFileSync(join(appDir, file), 'utf8')))
    .map((file) => file.split('\\').join('/'))
    .sort()
}

/** Each exported action's body, up to the closing brace at the start of a line. */
function exportedActions(source: string): Map<string, string> {
  const actions = new Map<string, string>()
  for (const match of source.matchAll(/^export async function (\w+)/gm)) {
    const start = (match.index ?? 0) + match[0].length
    const end = source.indexOf('\n}\n', start)
    actions.set(match[1] as string, source.slice(start, end === -1 ? undefined : end))
  }
  return actions
}

describe('every server action asks authorize for a named permission', () => {
  const files = serverActionFiles()

  it('has every server action file in the table, and nothing the app does not have', () => {
    expect(files).toEqual(Object.keys(ACTION_PERMISSIONS).sort())
  })

  for (const file of files) {
    it(`${file}: each exported action calls authorize with its permissions, before anything else awaits`, () => {
      const table = ACTION_PERMISSIONS[file as keyof typeof ACTION_PERMISSIONS] as Record<
        string,
        readonly string[]
      >
      const actions = exportedActions(readFileSync(join(appDir, file), 'utf8'))
      expect([...actions.keys()].sort()).toEqual(Object.keys(table).sort())
      for (const [action, body] of actions) {
        const asked = [...body.matchAll(/authorize\('([\w.]+)'\)/g)].map((m) => m[1])
        expect(asked, action).toEqual(table[action])
        for (const permission of asked) expect(PERMISSION_NAMES, action).toContain(permission)
        // The first thing an action waits for is the check: no database read or write before it.
        if (asked.length > 0) expect(body.match(/await (\w+)/)?.[1], action).toBe('authorize')
      }
    })
  }
})
