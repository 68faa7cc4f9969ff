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
