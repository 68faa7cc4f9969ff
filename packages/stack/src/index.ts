export { ensureServices } from './services'
