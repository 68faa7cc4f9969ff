import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadConfig, stopWhenStdinCloses } from '@fairlane/config'
import next from 'next'
import { createRouter } from './fast-path/router'
import { createWebServer, listen, WebBootError } from './fast-path/web-server'
import { compileProxyTrust } from './http/client-address'
import { API_ROUTES } from './routes'
import { buildWebContainer, registerWebContainer } from './web-container'

/**
 * The web process (`pnpm start`, `pnpm dev`, the container image): one Node HTTP server in front of
 * Next.js, and the process's one container. `/api/**` is the route table's (`routes.ts`), answered
 * straight from its handlers (about 2 ms of CPU a call, against 7 ms through Next.js's request
 * machinery); everything else — pages, server actions, `/u/:token` — goes to Next.js, in dev mode
 * under `pnpm dev`. The container built here is registered on globalThis, and Next.js's pages and
 * actions use it (container.ts): one PostgreSQL pool, one Redis client, one better-auth per process.
 * Every request body is capped here before anything reads it (http/body-limits.ts).
 *
 *   NODE_ENV=production node --import tsx apps/web/src/server/main.ts   (after `next build`)
 *   NODE_ENV=development node --import tsx apps/web/src/server/main.ts  (Next.js in dev mode)
 */
const APP_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

async function main(): Promise<void> {
  // A wrong environment stops here, one line per variable (loadConfig exits 1).
  const config = loadConfig()
  stopWhenStdinCloses(config)
  const web = buildWebContainer(config)
  registerWebContainer(web)
  const { logger } = web
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'))

  const dev = config.NODE_ENV === 'development'
  const app = next({
    dev,
    dir: APP_DIR,
    hostname: config.HOST,
    port: config.WEB_PORT,
  })
  // Next.js gets ready while the port is bound, so a taken port stops the boot at once; a page
  // requested in between waits for it.
  const nextHandler = app.prepare().then(() => app.getRequestHandler())
  nextHandler.catch(() => {}) // awaited below; this only keeps it from counting as unhandled meanwhile
  const entry = createWebServer({
    router: createRouter(Object.values(API_ROUTES)),
    deps: web,
    logger,
    metrics: web.metrics,
    dev,
    trustProxy: compileProxyTrust(config.TRUSTED_PROXIES),
    fallback: async (req, res) => (await nextHandler)(req, res),
    origin: `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${config.WEB_PORT}`,
  })
  await listen(entry.server, config.HOST, config.WEB_PORT)
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
      ['http server', () => entry.close()],
      ['next.js', () => app.close()],
      ['clients', () => web.close()],
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
      dev,
      apiRoutes: Object.keys(API_ROUTES).length,
    },
    'web ready',
  )
}

main().catch((error: unknown) => {
  if (error instanceof WebBootError) console.error(`web: ${error.message}`)
  else console.error('web: failed to start:', error)
  process.exit(1)
})
