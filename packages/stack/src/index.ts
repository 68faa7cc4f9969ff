export { launchPlatform, type Mode, preparePlatform, stopAll } from './platform'
export { runToEnd } from './processes'
export { ensureServices } from './services'
export { webBuildIsStale } from './web-build'
