# syntax=docker/dockerfile:1
#
# One image for every Fairlane process. The default command runs the web app; docker-compose.yml
# runs the worker, the inbound server, the mail sink and the one-shot migration from the same image
# with `command:`.
# Run it with an init process (`docker run --init`, compose `init: true`) so SIGTERM reaches node
# and the worker can drain before the orchestrator's grace period ends.

FROM node:20-bookworm-slim AS base
ENV PNPM_HOME=/pnpm \
    NEXT_TELEMETRY_DISABLED=1 \
    npm_config_update_notifier=false
# Exactly the version in package.json's packageManager; from npm because corepack cannot verify
# pnpm's signatures everywhere we build.
RUN npm i -g pnpm@12.4.2 && pnpm --version
WORKDIR /app

# --- deps: only the manifests, so this layer is rebuilt only when dependencies change --------------
FROM base AS deps
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
# pnpm-workspace.yaml's patchedDependencies: applied by the install, so needed before it.
COPY patches/ patches/
# Every workspace package's manifest, listed one by one: pnpm needs all of them to honour the
# lockfile. A new package must be added here (packages/stack/src/compose.test.ts checks it).
COPY apps/inbound/package.json apps/inbound/
COPY apps/mailsink/package.json apps/mailsink/
COPY apps/submission/package.json apps/submission/
COPY apps/web/package.json apps/web/
COPY apps/worker/package.json apps/worker/
COPY packages/config/package.json packages/config/
COPY packages/core/package.json packages/core/
COPY packages/db/package.json packages/db/
COPY packages/delivery/package.json packages/delivery/
COPY packages/dns-server/package.json packages/dns-server/
COPY packages/fairness/package.json packages/fairness/
COPY packages/mail/package.json packages/mail/
COPY packages/queue/package.json packages/queue/
COPY packages/stack/package.json packages/stack/
COPY packages/testing/package.json packages/testing/
COPY e2e/package.json e2e/
COPY bench/package.json bench/
# No BuildKit cache mount for the store: later stages then never find node_modules pointing at a
# store that is not there; the store stays in this stage and the runtime copies only /app.
RUN pnpm install --frozen-lockfile

# --- build: the sources on top of the installed tree, then the Next.js production build -----------
FROM deps AS build
COPY . .
# A working tree may hold owner-only files (0600); the runtime user must be able to read them all.
RUN find . -name node_modules -prune -o \( -type d ! -perm -555 -o -type f ! -perm -444 \) -exec chmod a+rX {} + \
 && pnpm --filter @fairlane/web build

# --- runtime -----------------------------------------------------------------------------------------
FROM base AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    WEB_PORT=3000
# The whole built tree, dev dependencies included: worker, inbound, submission, sink and migrations run TypeScript
# through tsx (`node --import tsx …`), which is a dev dependency of the workspace root.
# Owned by root and read-only to the app; only Next.js's cache directory is writable.
COPY --from=build /app /app
RUN mkdir -p apps/web/.next/cache && chown -R node:node apps/web/.next/cache
USER node
EXPOSE 3000 2525 2526 8025 8025/udp 9464 9466
# The web process's own entry: the HTTP API straight to its handlers, everything else through the
# Next.js build above; on HOST:WEB_PORT. node directly, not through pnpm and a shell, so SIGTERM
# reaches the server and it drains.
CMD ["node", "--import", "tsx", "apps/web/src/server/main.ts"]
