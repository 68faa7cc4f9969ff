import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import {
  createMetricsRegistry,
  createWorkerMetrics,
  type DepthSource,
  registerDepthGauges,
} from '@fairlane/delivery/engine/metrics'
import { registerReceiverMetrics } from '@fairlane/delivery/engine/receivers/receiver-metrics'
import { REPOSITORY_ROOT } from '@fairlane/testing'
import { describe, expect, it } from 'vitest'

const RULES_FILE = `${REPOSITORY_ROOT}ops/prometheus/alerts.yml`
const RULES_TEST_FILE = `${REPOSITORY_ROOT}ops/prometheus/alerts.test.yml`
const hasPromtool = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0

/** Never read: only the metric names are looked at, and names are known without collecting. */
const unusedSource: DepthSource = {
  laneDepth: () => Promise.reject(new Error('not collected in this test')),
  deadLetterSize: () => Promise.reject(new Error('not collected in this test')),
  redisMemory: () => Promise.reject(new Error('not collected in this test')),
  outboxLagMs: () => Promise.reject(new Error('not collected in this test')),
  webhookPending: () => Promise.reject(new Error('not collected in this test')),
  tenantBacklogs: () => Promise.reject(new Error('not collected in this test')),
  tenantFeedback: () => Promise.reject(new Error('not collected in this test')),
}

/** Every series name the worker's /metrics can expose (histograms as _bucket, _sum and _count). */
function workerSeriesNames(): Set<string> {
  const registry = createMetricsRegistry()
  createWorkerMetrics(registry)
  registerDepthGauges(registry, unusedSource, { topTenants: 10 })
  registerReceiverMetrics(registry, {
    receivers: () => Promise.reject(new Error('not collected in this test')),
  })
  const names = new Set<string>()
  for (const metric of registry.getMetricsAsArray()) {
    const { name, type } = metric as unknown as { name: string; type: string }
    names.add(name)
    if (type === 'histogram')
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`)
  }
  return names
}

/** The metric names the rules' `expr` lines use (ours all start with `fairlane_`). */
function ruleMetricNames(rules: string): string[] {
  const exprs = rules
    .split('\n')
    .filter((line) => /^\s*expr:/.test(line))
    .join('\n')
  return [...new Set(exprs.match(/\bfairlane_[a-z0-9_]+/g) ?? [])].sort()
}

describe('alert rules (ops/prometheus/alerts.yml)', () => {
  const rules = readFileSync(RULES_FILE, 'utf8')

  it('use only metrics the worker registers', () => {
    const used = ruleMetricNames(rules)
    expect(used).toEqual(
      expect.arrayContaining([
        'fairlane_dead_letter_queue_size',
        'fairlane_lane_oldest_waiting_age_seconds',
        'fairlane_outbox_lag_seconds',
        'fairlane_redis_used_memory_bytes',
        'fairlane_redis_maxmemory_bytes',
        'fairlane_receiver_replies_total',
        'fairlane_tenant_bounce_rate',
        'fairlane_tenant_complaint_rate',
      ]),
    )
    const registered = workerSeriesNames()
    expect(used.filter((name) => !registered.has(name))).toEqual([])
  })

  it('catch a name that is not registered (the check above is not vacuous)', () => {
    const registered = workerSeriesNames()
    const used = ruleMetricNames('      expr: fairlane_no_such_metric > 0\n')
    expect(used.filter((name) => !registered.has(name))).toEqual(['fairlane_no_such_metric'])
  })

  it.skipIf(!hasPromtool)('pass `promtool check rules`', () => {
    const result = spawnSync('promtool', ['check', 'rules', RULES_FILE], { encoding: 'utf8' })
    // Every rule in the file is one promtool read (none silently dropped by a bad indent).
    const declared = rules.match(/^\s*- alert: /gm)?.length ?? 0
    expect(declared).toBeGreaterThan(0)
    expect(`${result.stdout}${result.stderr}`).toMatch(new RegExp(`SUCCESS: ${declared} rules found`))
    expect(result.status).toBe(0)
  })

  it.skipIf(!hasPromtool)('come with a scrape configuration that sends the METRICS_TOKEN bearer', () => {
    const config = `${REPOSITORY_ROOT}ops/prometheus/prometheus.yml`
    const result = spawnSync('promtool', ['check', 'config', '--syntax-only', config], { encoding: 'utf8' })
    expect(`${result.stdout}${result.stderr}`).toMatch(/SUCCESS/)
    expect(readFileSync(config, 'utf8')).toMatch(
      /job_name: fairlane-worker\n\s+authorization:\n\s+type: Bearer/,
    )
  })

  it.skipIf(!hasPromtool)(
    'fire near maxmemory and on a provider that keeps throttling, not otherwise (`promtool test rules`)',
    () => {
      const result = spawnSync('promtool', ['test', 'rules', RULES_TEST_FILE], { encoding: 'utf8' })
      expect(`${result.stdout}${result.stderr}`).toMatch(/SUCCESS/)
      expect(result.status).toBe(0)
    },
  )
})
