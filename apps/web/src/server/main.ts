import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadConfig, stopWhenStdinCloses } from '@fairlane/config'
import next from 'next'
import { createRouter } from './fast-path/router'
import { createWebServer, listen, WebBootError } from './fast-path/web-server'
import { compileProxyTrust } from './http/client-address'
import { API_ROUTES } from './routes'
import { buildApiContainer, nextJsContainer } from './web-container'

/**
 * The web process (`pnpm start`, the container image): one Node HTTP server in front of Next.js.
 * The HTTP API's routes (`routes.ts`: `/api/v1/messages`, health, admin) go straight to their
 * handlers; everything else — pages, server actions, `/api/auth/*`, API routes not in the table — to
 * Next.js's request handler. Under `next start` an API call cost the web process about 7 ms of CPU
 * (on the 2-core development machine, where 200 requests/s then queued for seconds); through this
 * path it costs about 2 ms, most of it the PostgreSQL, Redis and client socket round trips.
 *
 *   NODE_ENV=production node --import tsx apps/web/src/server/main.ts   (after `next build`)
 */
const APP_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

async function main(): Promise<void> {
  // A wrong environment stops here, one line per variable (loadConfig exits 1).
  const config = loadConfig()
  stopWhenStdinCloses(config)
  const api = buildApiContainer(config)
  const { logger } = api
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'))

  const app = next({
    dev: config.NODE_ENV === 'development',
    dir: APP_DIR,
    hostname: config.HOST,
    port: config.WEB_PORT,
  })
  // Next.js gets ready while the port is bound, so a taken port stops the boot at once; a page
  // requested in between waits for it.
  const nextHandler = app.prepare().then(() => app.getRequestHandler())
  nextHandler.catch(() => {}) // awaited below; this only keeps it from counting as unhandled meanwhile
  const web = createWebServer({
    router: createRouter(Object.values(API_ROUTES)),
    deps: api,
    logger,
    metrics: api.metrics,
    trustProxy: compileProxyTrust(config.TRUSTED_PROXIES),
    fallback: async (req, res) => (await nextHandler)(req, res),
    origin: `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${config.WEB_PORT}`,
  })
  await listen(web.server, config.HOST, config.WEB_PORT)
  await nextHandler

  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info({ signal, forceExitMs: config.SHUTDOWN_FORCE_EXIT_MS }, 'shutting down')
    const timer = setTimeout(() => {
      console.error(`web: forced exit: shutdown took longer than ${config.SHUTDOWN_FORCE_EXIT_MS} ms`)
      process.exit(1)
    }, config.SHUTDOWN_FORCE_EXIT_MS)
    timer.unref()
    // In order: no new requests and the running ones answered, then what they used.
    const steps: [string, () => Promise<void> | undefined][] = [
      ['http server', () => web.close()],
      ['next.js', () => app.close()],
      ['api clients', () => api.close()],
      ['next.js clients', () => nextJsContainer()?.close()],
    ]
    let failed = false
    for (const [name, run] of steps) {
      try {
        await run()
      } catch (error) {
        failed = true
        logger.error({ step: name, err: (error as Error).message }, 'shutdown step failed')
      }
    }
    clearTimeout(timer)
    logger.info({ failed }, 'shutdown complete')
    process.exit(failed ? 1 : 0)
  }
  // `on`, not `once`: a second signal while draining must not fall through to Node's default (kill).
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))

  logger.info(
    {
      url: `http://${config.HOST}:${config.WEB_PORT}`,
      fastPath: Object.values(API_ROUTES).map((route) => `${route.method} ${route.path}`),
    },
    'web ready',
  )
}

main().catch((error: unknown) => {
  if (error instanceof WebBootError) console.error(`web: ${error.message}`)
  else console.error('web: failed to start:', error)
  process.exit(1)
})
