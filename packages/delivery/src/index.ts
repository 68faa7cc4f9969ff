/**
 * The delivery engine's receiver side: how mail reaches the recipients' own mail servers (MX mode),
 * how those servers are grouped into providers that share one budget, how a provider's replies are
 * read, and how each provider's budget is shared between tenants.
 */

// Shaping: each (egress address × provider)'s rate, warm-up, and the share of it each tenant gets.
export * from './shaping/aimd'
export * from './shaping/fair-share'
export * from './shaping/provider-budget'
export * from './shaping/warmup'
