/**
 * The delivery engine's receiver side: how mail reaches the recipients' own mail servers (MX mode),
 * how those servers are grouped into providers that share one budget, how a provider's replies are
 * read, and how each provider's budget is shared between tenants.
 */
export {
  type AllowedHosts,
  filterAllowed,
  isPrivateAddress,
  privateAddressReason,
  type RefusedAddress,
} from './mx/private-address'
export {
  createMxResolver,
  MX_RESOLVER_DEFAULTS,
  type MxAnswer,
  type MxHost,
  type MxResolver,
  type MxResolverOptions,
} from './mx/resolve'
export {
  type ProviderOfInput,
  providerOf,
  type ReceivingProvider,
} from './receivers/rollup'
export {
  DEFAULT_RECEIVER_RULES_PATH,
  loadReceiverRules,
  type ProviderLimits,
  type ProviderRule,
  parseReceiverRules,
  type ReceiverRules,
  ReceiverRulesError,
  type ReceiverRulesIssue,
  type WarmupStep,
} from './receivers/rules'
export { warmupDailyCap } from './receivers/warmup'
export {
  type ConnectionPhase,
  classifyConnectionFailure,
  classifyReply,
  type ReplyClass,
  type SmtpReply,
  type ThrottleScope,
} from './replies/classify'
// Shaping: each (egress address × provider)'s rate, warm-up, and the share of it each tenant gets.
export * from './shaping/aimd'
export * from './shaping/fair-share'
export * from './shaping/provider-budget'
export * from './shaping/warmup'
