export {
  launchPlatform,
  type Mode,
  preparePlatform,
  stopAll,
  webProcessEnv,
  workerLayout,
} from './platform'
export { type SourceProcessName, signalGroup, startSourceProcess } from './platform-process'
export { answers, type ManagedProcess, runToEnd, startProcess, waitFor } from './processes'
export { DEMO_TENANT_ID } from './seed'
export { ensureSelfSignedCert } from './self-signed-cert'
export { ensureServices } from './services'
export { webBuildIsStale } from './web-build'
