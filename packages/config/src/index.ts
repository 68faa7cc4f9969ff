export {
  type Config,
  DEVELOPMENT_SESSION_SECRET,
  DEVELOPMENT_UNSUBSCRIBE_SECRET,
  databaseDirectUrl,
  envSchema,
  KNOWN_DEFAULT_SECRETS,
  type UnsubscribeSecret,
} from './env'
export { ConfigError, loadConfig, mailDomain, parseConfig, sinkDnsPort } from './load'
export {
  LOG_ERROR_SERIALIZERS,
  type LoggedError,
  scrubErrorText,
  serializeLogError,
  statementOf,
} from './log-errors'
export {
  type MailSinkReceiver,
  type ParsedReceivers,
  parseMailSinkReceivers,
} from './mailsink-receivers'
export { type ConfiguredPlan, parsePlans } from './plans'
export { parseRedisSeeds, type RedisSeed } from './redis-seeds'
export { type StdinWatchOptions, stopWhenStdinCloses } from './stop-when-stdin-closes'
