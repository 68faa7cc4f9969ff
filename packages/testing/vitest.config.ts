import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

/**
 * Lives here rather than at the repository root to keep the top level to what the README lists.
 * Four projects: `unit` (pure logic, no servers), `heap` (`*.heap.test.ts`: pure logic measured with
 * `--expose-gc` in a process of its own, so a forced collection makes heap numbers comparable),
 * `integration` (real PostgreSQL, Redis, mail sink; each file gets its own database cloned from a
 * migrated template and its own Redis key prefix) and `pgbouncer` (the delivery, relay and pacer
 * tests again, through PgBouncer in transaction mode with prepared statements off; LISTEN direct).
 */
const root = fileURLToPath(new URL('../..', import.meta.url))

/**
 * What runs through PgBouncer (transaction mode, DATABASE_PREPARE=false): the send path end to end,
 * the relay (its LISTEN on the direct URL), fairness (the pacer's release and the buckets), the pacer's
 * lease, and the proof that prepared statements
 * fail there without the setting (`*.pgbouncer.test.ts` run only here).
 */
const PGBOUNCER_FILES = [
  'apps/worker/src/lanes/delivery-pipeline.int.test.ts',
  'apps/worker/src/relay/relay.int.test.ts',
  'apps/worker/src/fairness/fairness.int.test.ts',
  'apps/worker/src/fairness/pacer-redis-outage.int.test.ts',
  'apps/worker/src/fairness/pacer-leadership.int.test.ts',
  'apps/worker/src/fairness/pacer-handover.int.test.ts',
  '{apps,packages}/*/src/**/*.pgbouncer.test.ts',
]

export default defineConfig({
  test: {
    root,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['{apps,packages}/*/src/**/*.test.ts', 'bench/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/*.heap.test.ts', '**/*.pgbouncer.test.ts', '**/node_modules/**'],
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
      {
        extends: true,
        test: {
          name: 'pgbouncer',
          include: PGBOUNCER_FILES,
          exclude: ['**/node_modules/**'],
          globalSetup: [fileURLToPath(new URL('./src/pgbouncer-global-setup.ts', import.meta.url))],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
})
