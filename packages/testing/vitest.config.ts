import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

/**
 * Lives here rather than at the repository root to keep the top level to what the README lists.
 * Six projects: `unit` (pure logic, no servers), `heap` (`*.heap.test.ts`: pure logic measured with
 * `--expose-gc` in a process of its own, so a forced collection makes heap numbers comparable),
 * `integration` (real PostgreSQL, Redis, mail sink; each file gets its own database cloned from a
 * migrated template and its own Redis key prefix), `timing` (the integration files that assert
 * timings, alone and after the rest), `pgbouncer` (the delivery, relay and pacer
 * tests again, through PgBouncer in transaction mode with prepared statements off; LISTEN direct) and
 * `cluster`: a few integration files again, and the `*.cluster.test.ts` files, against a local
 * three-master Redis Cluster (REDIS_CLUSTER=true) started once by its own global setup.
 */
const root = fileURLToPath(new URL('../..', import.meta.url))

/**
 * What runs through PgBouncer (transaction mode, DATABASE_PREPARE=false): the send path end to end,
 * the relay (its LISTEN on the direct URL), fairness (the pacer's release and the buckets), the pacer's
 * lease, and the proof that prepared statements
 * fail there without the setting (`*.pgbouncer.test.ts` run only here).
 */
const PGBOUNCER_FILES = [
  'packages/delivery/src/engine/lanes/delivery-pipeline.int.test.ts',
  'packages/delivery/src/engine/relay/relay.int.test.ts',
  'packages/delivery/src/engine/fairness/fairness.int.test.ts',
  'packages/delivery/src/engine/fairness/pacer-redis-outage.int.test.ts',
  'packages/delivery/src/engine/fairness/pacer-leadership.int.test.ts',
  'apps/worker/src/fairness/pacer-handover.int.test.ts',
  '{apps,packages}/*/src/**/*.pgbouncer.test.ts',
]

/**
 * Integration files whose assertions need the machine to themselves: timings (latency percentiles, a
 * small tenant's first send, rates per window) and the SIGKILL chaos file, whose bound on repeated
 * deliveries assumes marks commit as fast as an idle machine commits them. The `timing` project runs
 * them one at a time, after every other file, so no other test file shares the two cores with them.
 */
const TIMING_FILES = [
  'apps/worker/src/chaos/process.int.test.ts',
  'packages/delivery/src/engine/fairness/fairness.int.test.ts',
  'packages/delivery/src/engine/fairness/otp-flood.int.test.ts',
  'packages/delivery/src/engine/fairness/burst-deferral.int.test.ts',
  'packages/delivery/src/engine/fairness/bulk-governor.int.test.ts',
  'packages/delivery/src/engine/webhooks/webhook-fairness.int.test.ts',
  'packages/delivery/src/engine/webhooks/webhook-pressure.int.test.ts',
]

/** What the `cluster` project runs against the local Redis Cluster. */
const CLUSTER_TEST_FILES = [
  'packages/delivery/src/engine/lanes/delivery-pipeline.int.test.ts',
  'packages/delivery/src/engine/chaos/flushall.int.test.ts',
  'packages/fairness/src/bucket/token-buckets.int.test.ts',
  'packages/fairness/src/lane/lane-slots.int.test.ts',
  'packages/delivery/src/engine/**/*.cluster.test.ts',
]

export default defineConfig({
  test: {
    root,
    // Two files at a time (vitest's default on two cores is one): most integration files wait on
    // PostgreSQL, Redis and the sink rather than on the CPU, and one at a time no longer fit CI's budget.
    maxWorkers: 2,
    // Files share their worker's module cache (not isolated): loading the workspace's modules again for
    // every file (drizzle, BullMQ, the engine) took more time than the tests, 521 s of CI's 1,068 s
    // (the unit project 93 s → 15 s, the integration project's database files 49 s → 21 s). Each
    // file still gets its own database and Redis prefix (`setupTestEnvironment`); nothing here mocks
    // modules or fakes timers, and stubbed globals are put back after every test.
    isolate: false,
    unstubGlobals: true,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['{apps,packages}/*/src/**/*.test.ts', 'bench/**/*.test.ts'],
          exclude: [
            '**/*.int.test.ts',
            '**/*.heap.test.ts',
            '**/*.pgbouncer.test.ts',
            '**/*.cluster.test.ts',
            '**/node_modules/**',
          ],
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
          // A process of its own: heap figures are not shared with other files' garbage.
          isolate: true,
          // 400 parses of 200 KB take about 30 s of an idle core (a minute and a half on a loaded machine of two).
          testTimeout: 900_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['{apps,packages}/*/src/**/*.int.test.ts', 'bench/**/*.int.test.ts'],
          exclude: [...TIMING_FILES, '**/node_modules/**'],
          globalSetup: [fileURLToPath(new URL('./src/global-setup.ts', import.meta.url))],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'timing',
          include: TIMING_FILES,
          exclude: ['**/node_modules/**'],
          globalSetup: [fileURLToPath(new URL('./src/global-setup.ts', import.meta.url))],
          fileParallelism: false,
          // After the projects of group 0 (unit, heap, integration, cluster) have finished.
          sequence: { groupOrder: 1 },
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
          // Last and one file at a time: it runs the timing-sensitive fairness file again.
          fileParallelism: false,
          sequence: { groupOrder: 2 },
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'cluster',
          // Delivery, fairness and chaos once more on the cluster (a few minutes in all: files picked
          // for coverage, not all of them), and the failover test, which only runs here.
          include: CLUSTER_TEST_FILES,
          exclude: ['**/node_modules/**'],
          globalSetup: [fileURLToPath(new URL('./src/cluster-global-setup.ts', import.meta.url))],
          // One cluster for the project: the chaos file flushes every master, so files take turns.
          fileParallelism: false,
          // Isolated, as the heap project is: vitest runs projects of one group with different worker
          // counts side by side only when they are (its files are few).
          isolate: true,
          testTimeout: 90_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
})
