import type { ReceiverRules } from './rules'

/**
 * What the schema of the rules file cannot say field by field: names and patterns used once, a
 * warm-up that starts on day 1 and only grows, a back-off floor below every starting rate.
 */

export type ConsistencyIssue = { path: (string | number)[]; message: string }

export function consistencyIssues(rules: ReceiverRules): ConsistencyIssue[] {
  return [...duplicateIssues(rules), ...warmupIssues(rules.warmup), ...floorIssues(rules)]
}

function duplicateIssues(rules: ReceiverRules): ConsistencyIssue[] {
  const issues: ConsistencyIssue[] = []
  const seenNames = new Map<string, number>()
  const seenPatterns = new Map<string, string>()
  rules.providers.forEach((provider, index) => {
    const earlier = seenNames.get(provider.name)
    if (earlier !== undefined) {
      issues.push({
        path: ['providers', index, 'name'],
        message: `duplicate provider name "${provider.name}" (also providers[${earlier}])`,
      })
    } else seenNames.set(provider.name, index)
    provider.mx.forEach((pattern, patternIndex) => {
      const first = seenPatterns.get(pattern)
      // Two rules for one pattern would make the rollup depend on the order of the file.
      if (first !== undefined) {
        issues.push({
          path: ['providers', index, 'mx', patternIndex],
          message: `"${pattern}" is listed twice (also ${first})`,
        })
      } else seenPatterns.set(pattern, `providers[${index}].mx[${patternIndex}]`)
    })
  })
  return issues
}

function warmupIssues(warmup: ReceiverRules['warmup']): ConsistencyIssue[] {
  const issues: ConsistencyIssue[] = []
  const steps = warmup.schedule
  if (steps[0] !== undefined && steps[0].day !== 1) {
    issues.push({
      path: ['warmup', 'schedule', 0, 'day'],
      message: 'the first step must be day 1: a new address needs a cap from its first day',
    })
  }
  steps.forEach((step, index) => {
    const previous = steps[index - 1]
    if (previous === undefined) return
    if (step.day <= previous.day) {
      issues.push({
        path: ['warmup', 'schedule', index, 'day'],
        message: `expected a day after ${previous.day} (steps in order, each day once)`,
      })
    }
    if (step.perDayPerProvider < previous.perDayPerProvider) {
      issues.push({
        path: ['warmup', 'schedule', index, 'perDayPerProvider'],
        message: `expected at least ${previous.perDayPerProvider}: a warm-up only grows`,
      })
    }
  })
  const lastStep = steps.at(-1)
  if (lastStep !== undefined && warmup.warmAfterDay <= lastStep.day) {
    issues.push({
      path: ['warmup', 'warmAfterDay'],
      message: `expected a day after the last step's (${lastStep.day})`,
    })
  }
  return issues
}

/** A floor above a provider's starting rate would make the first cut raise its rate. */
function floorIssues(rules: ReceiverRules): ConsistencyIssue[] {
  const floor = rules.backoff.minPerMinute
  return [
    ...rules.providers.map((provider, index) => ({ path: `providers[${index}]`, limits: provider.limits })),
    { path: 'default', limits: rules.default.limits },
  ]
    .filter((entry) => entry.limits.perMinute < floor)
    .map((entry) => ({
      path: ['backoff', 'minPerMinute'],
      message: `${floor} is above ${entry.path}.limits.perMinute (${entry.limits.perMinute})`,
    }))
}
