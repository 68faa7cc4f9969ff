import type { z } from 'zod'
import type { FieldIssue } from './app-error'

/** Zod issues as `{ path: "variables.code", message }`, the shape every 400 carries in `details`. */
export function fieldIssues(error: z.ZodError, prefix: readonly PropertyKey[] = []): FieldIssue[] {
  return error.issues.flatMap((issue) => {
    // An unrecognized key is reported on the object; name each key so the client sees which one.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: dotted([...prefix, ...issue.path, key]),
        message: 'is not a recognized field',
      }))
    }
    return [{ path: dotted([...prefix, ...issue.path]), message: issue.message }]
  })
}

/** `['contacts', 0, 'email']` → `contacts[0].email`. */
export function dotted(path: readonly PropertyKey[]): string {
  let out = ''
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`
    else out += out === '' ? String(part) : `.${String(part)}`
  }
  return out
}
