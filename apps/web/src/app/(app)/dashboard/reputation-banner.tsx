import type { ReputationStage } from '@fairlane/db'

/** What each stage of the reputation guardrail means for the tenant, in its own words. */
const STAGE_WORDS: Record<Exclude<ReputationStage, 'ok'>, { title: string; meaning: string }> = {
  warn: {
    title: 'Your bounce or complaint rate is high',
    meaning:
      'Mailbox providers judge every sender on Fairlane’s shared addresses by rates like this one. Clean the list the last campaigns went to (remove addresses that bounced, mail only people who asked): if the rate keeps rising, your campaigns are slowed, then paused.',
  },
  slow: {
    title: 'Your campaigns are slowed',
    meaning:
      'Your campaign mail gets a quarter of its usual share of the sending lane until the rate falls. Your login codes and other API mail are not affected.',
  },
  pause: {
    title: 'Your campaigns are paused',
    meaning:
      'No campaign mail leaves until the Fairlane team resumes your account: write to support with what caused it. Your campaigns’ remaining recipients are kept, and your login codes and other API mail still go out.',
  },
}

/**
 * Said at the top of the dashboard while the reputation guardrail has the tenant at `warn`, `slow`
 * or `pause`: the stage, the rate that put it there, and what it does and does not stop.
 */
export function ReputationBanner(props: { stage: ReputationStage; reason: string | null }) {
  if (props.stage === 'ok') return null
  const words = STAGE_WORDS[props.stage]
  return (
    <section
      className="standing-banner"
      role="alert"
      aria-label="Sending reputation"
      data-testid="reputation-banner"
      data-stage={props.stage}
    >
      <p>
        <strong>{words.title}</strong>
        {props.reason ? `: ${props.reason}.` : '.'}
      </p>
      <p>{words.meaning}</p>
    </section>
  )
}
