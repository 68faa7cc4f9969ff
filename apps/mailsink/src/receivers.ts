/**
 * What tests and benchmarks need to play the receiving mail servers: the default set, and the DNS
 * records that point test domains at them (for the sink's own DNS server or a test's).
 */
import type { ReceiverOptions } from './sink'

export type { ReceiverFault, ReceiverFaultSpec, ReceiverIdentity, ThrottleKey } from './receiver-faults'
export {
  DEFAULT_THROTTLE_REPLIES,
  THROTTLE_WINDOW_MS,
  TOO_MANY_CONNECTIONS_REPLY,
} from './receiver-faults'
export type { ReceiverCounts, ReceiverStatus } from './receiver-gate'
export {
  type DnsZone,
  publishReceiver,
  publishReceiverDomain,
  receiverDomains,
  receiverMxHost,
} from './receiver-zone'
export type { ReceiverOptions, RunningReceiver } from './sink'

/**
 * Three receivers as the tests and `pnpm start --mx` use them: "google" and "microsoft" (MX
 * hosts under google.com and protection.outlook.com, domains gmail.test, googlemail.test,
 * outlook.test, hotmail.test) and "others" (mx.others.test, others.test) for every other domain.
 */
export const DEFAULT_TEST_RECEIVERS: readonly ReceiverOptions[] = [
  { name: 'google', address: '127.0.0.10' },
  { name: 'microsoft', address: '127.0.0.11' },
  { name: 'others', address: '127.0.0.12' },
]
