import type { NextConfig } from 'next'

const config: NextConfig = {
  // Workspace packages ship TypeScript source; Next compiles them with the app.
  transpilePackages: [
    '@fairlane/config',
    '@fairlane/core',
    '@fairlane/db',
    '@fairlane/fairness',
    '@fairlane/mail',
    '@fairlane/queue',
  ],
  // Node-only clients stay out of the bundle and load from node_modules at run time.
  serverExternalPackages: ['bullmq', 'ioredis', 'postgres', 'pino'],
  // `pnpm test` type-checks the app (`pnpm typecheck`, the same tsconfig) just before it builds it,
  // and says so with this variable: the build does not check it a second time (about 35 s).
  typescript: { ignoreBuildErrors: process.env.FAIRLANE_BUILD_TYPECHECKED === '1' },
  poweredByHeader: false,
  reactStrictMode: true,
  typedRoutes: false,
  experimental: {
    // forbidden(): the admin console answers a signed-in tenant user with a real 403 page.
    authInterrupts: true,
    // The web entry caps page and server-action bodies at the same 2 MB (BODY_LIMITS.pages in
    // src/server/http/body-limits.ts) before Next.js reads them; body-limits.test.ts keeps them equal.
    serverActions: { bodySizeLimit: '2mb' },
  },
}

export default config
