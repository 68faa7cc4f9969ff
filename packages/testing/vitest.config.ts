import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

/**
 * Lives here rather than at the repository root to keep the top level to what the README lists.
 * Three projects: `unit` (pure logic, no servers), `heap` (`*.heap.test.ts`: pure logic measured with
 * `--expose-gc` in a process of its own, so a forced collection makes heap numbers comparable) and
 * `integration` (real PostgreSQL, Redis, mail sink; each file gets its own database cloned from a
 * migrated template and its own Redis key prefix).
 */
const root = fileURLToPath(new URL('../..', import.meta.url))

export default defineConfig({
  test: {
    root,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['{apps,packages}/*/src/**/*.test.ts', 'bench/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/*.heap.test.ts', '**/node_modules/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'heap',
          include: ['{apps,packages}/*/src/**/*.heap.test.ts'],
          exclude: ['**/node_modules/**'],
          pool: 'forks',
          execArgv: ['--expose-gc'],
          // 2,000 parses of 200 KB take two minutes of an idle core (five on a loaded machine of two).
          testTimeout: 900_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['{apps,packages}/*/src/**/*.int.test.ts', 'bench/**/*.int.test.ts'],
          exclude: ['**/node_modules/**'],
          globalSetup: [fileURLToPath(new URL('./src/global-setup.ts', import.meta.url))],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
})
