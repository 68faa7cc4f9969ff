/** A plan as a tenant reads it: what it may send, not the token bucket's parameters. */
export function planInWords(plan: { ratePerSec: number; burst: number; weight: number }): {
  rate: string
  detail: string
} {
  const emails = (n: number) => `${n.toLocaleString('en')} ${n === 1 ? 'email' : 'emails'}`
  return {
    rate: `Up to ${emails(plan.ratePerSec)} per second`,
    detail: `bursts of ${emails(plan.burst)} at once; when the platform has room to spare, your campaigns get ${
      plan.weight === 1 ? 'a standard share' : `${plan.weight}× the standard share`
    } of it`,
  }
}
