import { fileURLToPath } from 'node:url'
import { defineConfig } from '@playwright/test'

/**
 * The e2e suites start the whole platform themselves (`pnpm start`'s launcher) on ports and a
 * database of their own, so they never touch a developer's running platform.
 */
const root = fileURLToPath(new URL('..', import.meta.url))
const serverUrl = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/fairlane')
serverUrl.pathname = '/fairlane_e2e'

export const E2E = {
  webUrl: 'http://127.0.0.1:3100',
  inboxUrl: 'http://127.0.0.1:8125',
  metricsUrl: 'http://127.0.0.1:9564',
  adminToken: 'e2e-admin-token-0123456789abcdef',
  /** The worker's /metrics answers only this bearer (METRICS_TOKEN), as a deployment's scraper would send it. */
  metricsToken: 'e2e-metrics-token-0123456789abcdef',
  demoApiKey: 'fl_e2eDemoKey0123456789abcdefghijklmnop',
  sessionSecret: 'e2e-session-secret-0123456789abcdefghijklmnop',
  /** Pinned so a suite can mint unsubscribe tokens with the platform's key (e2e/unsubscribe.spec.ts). */
  unsubscribeKey: { kid: 1, secret: 'e2e-unsubscribe-secret-0123456789abcdefghijk' },
  /** The seeded platform admin (packages/stack/src/seed.ts) signs in with this password. */
  adminEmail: 'admin@fairlane.local',
  adminPassword: 'e2e-admin-password-0123456789',
  /** QUEUE_PREFIX of the platform under test: its queues and counters live under it in Redis. */
  queuePrefix: 'fairlane-e2e',
}

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  globalSetup: './global-setup.ts',
  fullyParallel: true,
  workers: 2,
  retries: 0,
  timeout: 30_000,
  reporter: [['list']],
  use: {
    baseURL: E2E.webUrl,
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: {
    // A fresh database for every run (fresh-database.mjs), then the launcher in the shell's place.
    command: 'node e2e/fresh-database.mjs && exec node packages/stack/bin/run.mjs start',
    cwd: root,
    url: `${E2E.webUrl}/api/health/ready`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 30_000 },
    env: {
      ...(process.env as Record<string, string>),
      DATABASE_URL: serverUrl.toString(),
      WEB_PORT: '3100',
      MAILSINK_SMTP_PORT: '2625',
      MAILSINK_HTTP_PORT: '8125',
      WORKER_METRICS_PORT: '9564',
      INBOUND_SMTP_PORT: '2626',
      INBOUND_HTTP_PORT: '9566',
      SUBMISSION_PORT: '2687',
      SUBMISSION_HTTP_PORT: '9567',
      SMTP_URL: 'smtp://127.0.0.1:2625',
      APP_URL: E2E.webUrl,
      QUEUE_PREFIX: E2E.queuePrefix,
      ADMIN_TOKEN: E2E.adminToken,
      METRICS_TOKEN: E2E.metricsToken,
      DEMO_API_KEY: E2E.demoApiKey,
      SESSION_SECRET: E2E.sessionSecret,
      UNSUBSCRIBE_SECRET: `${E2E.unsubscribeKey.kid}:${E2E.unsubscribeKey.secret}`,
      DEMO_ADMIN_PASSWORD: E2E.adminPassword,
      // The suites open tracked mail the moment it arrives: only user agents tell bots apart here.
      TRACKING_SCANNER_WINDOW_MS: '0',
      // Every test signs up a tenant of its own, all from 127.0.0.1.
      SIGN_UP_LIMIT_PER_HOUR: '100000',
      // Webhook receivers in the suites are local HTTP servers (e2e/webhooks.spec.ts).
      WEBHOOK_ALLOW_PRIVATE: 'true',
      // One retry a second after the first failure, then failed: a suite sees a failed delivery in
      // seconds instead of a day (e2e/webhooks.spec.ts replays one).
      WEBHOOK_RETRY_SCHEDULE: '1s',
      // A receiver that hangs keeps its delivery pending this long (the first webhooks story needs it so).
      WEBHOOK_TIMEOUT_MS: '60000',
    },
  },
})
