export { type Config, DEVELOPMENT_SESSION_SECRET, envSchema } from './env'
export { ConfigError, loadConfig, mailDomain, parseConfig } from './load'
export { type StdinWatchOptions, stopWhenStdinCloses } from './stop-when-stdin-closes'
