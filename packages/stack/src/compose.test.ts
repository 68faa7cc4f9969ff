import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

/**
 * No Docker engine runs where the tests run, so docker-compose.yml and the Dockerfile are checked
 * for the properties the platform's promises rest on, rather than by starting them.
 */
const root = fileURLToPath(new URL('../../..', import.meta.url))

interface Service {
  image?: string
  build?: unknown
  command?: string | string[]
  environment?: Record<string, string | number | null> | string[]
  depends_on?: string[] | Record<string, { condition?: string }>
  healthcheck?: { test?: string | string[]; disable?: boolean }
  stop_grace_period?: string
  init?: boolean
  restart?: string
}

// Compose resolves YAML merge keys (`<<: *app`); so must we, to see what each service really gets.
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>
}
const services = compose.services
const service = (name: string): Service => {
  const found = services[name]
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`)
  return found
}

function environment(of: Service): Record<string, string> {
  const env = of.environment ?? {}
  if (Array.isArray(env)) {
    return Object.fromEntries(env.map((entry) => [entry.split('=')[0], entry.split('=').slice(1).join('=')]))
  }
  return Object.fromEntries(Object.entries(env).map(([key, value]) => [key, String(value ?? '')]))
}

/** Compose durations: `35s`, `1m30s`, `500ms`, `1h`. */
function durationMs(value: string): number {
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|us|s|m|h)/g)]
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== value)
    throw new Error(`bad duration ${value}`)
  const unit = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const
  return parts.reduce((sum, part) => sum + Number(part[1]) * unit[part[2] as keyof typeof unit], 0)
}

const commandLine = (of: Service) => (Array.isArray(of.command) ? of.command.join(' ') : (of.command ?? ''))

describe('docker-compose.yml', () => {
  it('has exactly the platform’s services', () => {
    expect(Object.keys(services).sort()).toEqual([
      'inbound',
      'mailsink',
      'migrate',
      'postgres',
      'redis-queue',
      'submission',
      'web',
      'worker',
      'worker-tx',
    ])
  })

  it('splits the lanes: bulk in worker, the transactional lanes in worker-tx, each its own metrics port', () => {
    expect(environment(service('worker')).WORKER_LANES).toBe('bulk')
    expect(environment(service('worker-tx')).WORKER_LANES).toBe('critical,default')
    expect(environment(service('worker')).WORKER_METRICS_PORT).not.toBe(
      environment(service('worker-tx')).WORKER_METRICS_PORT,
    )
  })

  it('runs bulk below nice 0 and the transactional worker above it, with the one capability that takes', () => {
    expect(environment(service('worker')).WORKER_NICE).toBe('10')
    expect(environment(service('worker-tx')).WORKER_NICE).toBe('-5')
    expect((service('worker-tx') as { cap_add?: string[] }).cap_add).toEqual(['SYS_NICE'])
    expect((service('worker') as { cap_add?: string[] }).cap_add).toBeUndefined()
  })

  it("points every app's DNS_SERVERS at the mail sink's DNS server, at its fixed address", () => {
    const sink = environment(service('mailsink'))
    const networks = (service('mailsink') as { networks?: { default?: { ipv4_address?: string } } }).networks
    const address = `${networks?.default?.ipv4_address}:${sink.MAILSINK_DNS_PORT}`
    for (const name of ['web', 'worker', 'worker-tx', 'mailsink'])
      expect(environment(service(name)).DNS_SERVERS, name).toBe(`\${DNS_SERVERS:-${address}}`)
    expect(sink.MAILSINK_DNS_PORT).toBe('8025')
  })

  it('runs the queue Redis with noeviction and AOF', () => {
    const command = commandLine(service('redis-queue'))
    expect(command).toContain('--maxmemory-policy noeviction')
    expect(command).toContain('--appendonly yes')
  })

  it('gives the worker longer to stop than its own forced-exit timer', () => {
    const worker = service('worker')
    const forcedExitMs = Number(environment(worker).SHUTDOWN_FORCE_EXIT_MS || 25_000)
    expect(worker.stop_grace_period).toBeDefined()
    expect(durationMs(worker.stop_grace_period ?? '10s')).toBeGreaterThan(forcedExitMs)
  })

  it.each(['worker', 'worker-tx', 'web'])(
    'starts %s only after healthy PostgreSQL and Redis and a finished migration',
    (name) => {
      const dependsOn = service(name).depends_on
      expect(dependsOn).not.toBeInstanceOf(Array) // the short form cannot wait for health
      const conditions = dependsOn as Record<string, { condition?: string }>
      expect(conditions.postgres?.condition).toBe('service_healthy')
      expect(conditions['redis-queue']?.condition).toBe('service_healthy')
      expect(conditions.migrate?.condition).toBe('service_completed_successfully')
    },
  )

  it('has a health check on every long-running service', () => {
    for (const [name, definition] of Object.entries(services)) {
      if (name === 'migrate') continue // one-shot: "healthy" means it exited 0
      expect(definition.healthcheck?.test, name).toBeTruthy()
      expect(definition.healthcheck?.disable, name).not.toBe(true)
    }
  })

  it('runs the app services from the one image with an init process, migrate as a one-shot', () => {
    for (const name of ['migrate', 'mailsink', 'worker', 'inbound', 'submission', 'web']) {
      expect(service(name).build, name).toBeTruthy()
      expect(service(name).image, name).toBe(service('web').image)
      expect(service(name).init, name).toBe(true)
    }
    expect(service('migrate').restart).toBe('no')
    expect(commandLine(service('migrate'))).toContain('packages/db/src/migrate-cli.ts')
    expect(commandLine(service('worker'))).toContain('apps/worker/src/main.ts')
    expect(commandLine(service('mailsink'))).toContain('apps/mailsink/src/main.ts')
    expect(commandLine(service('inbound'))).toContain('apps/inbound/src/main.ts')
    expect(commandLine(service('submission'))).toContain('apps/submission/src/main.ts')
  })

  it('runs the inbound server after a finished migration, reachable by the sink at INBOUND_SMTP_URL', () => {
    const inbound = service('inbound')
    const conditions = inbound.depends_on as Record<string, { condition?: string }>
    expect(conditions.postgres?.condition).toBe('service_healthy')
    expect(conditions.migrate?.condition).toBe('service_completed_successfully')
    expect(environment(service('mailsink')).INBOUND_SMTP_URL).toBe(
      `smtp://inbound:${environment(inbound).INBOUND_SMTP_PORT}`,
    )
  })
})

describe('Dockerfile', () => {
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8')
  // Instructions with their line continuations joined, comments dropped.
  const instructions = dockerfile
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))

  const stage = (name: string): string[] => {
    const start = instructions.findIndex((line) => new RegExp(`^FROM\\s.+\\sAS\\s+${name}$`, 'i').test(line))
    if (start === -1) return []
    const end = instructions.findIndex((line, index) => index > start && /^FROM\s/i.test(line))
    return instructions.slice(start + 1, end === -1 ? undefined : end)
  }

  it('has the deps, build and runtime stages', () => {
    for (const name of ['deps', 'build', 'runtime']) expect(stage(name), name).not.toEqual([])
  })

  it('installs exactly what the lockfile says', () => {
    expect(stage('deps').some((line) => /^RUN\s.*pnpm install\b.*--frozen-lockfile/.test(line))).toBe(true)
  })

  it('copies every workspace manifest into the deps stage', () => {
    const copied = new Set(
      stage('deps')
        .filter((line) => /^COPY\s/i.test(line))
        .flatMap((line) => {
          const args = line.split(/\s+/).slice(1)
          return args.filter((arg) => !arg.startsWith('--')).slice(0, -1) // sources; the last one is the target
        })
        .map((source) => source.replace(/^\.\//, '')),
    )
    const manifests = ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml']
    for (const parent of ['apps', 'packages']) {
      for (const name of readdirSync(join(root, parent))) {
        if (existsSync(join(root, parent, name, 'package.json')))
          manifests.push(`${parent}/${name}/package.json`)
      }
    }
    for (const single of ['e2e', 'bench']) {
      if (existsSync(join(root, single, 'package.json'))) manifests.push(`${single}/package.json`)
    }
    // The dependency patches pnpm-workspace.yaml names: the install applies them.
    const workspace = parse(readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8')) as {
      patchedDependencies?: Record<string, string>
    }
    if (Object.keys(workspace.patchedDependencies ?? {}).length > 0) manifests.push('patches/')
    const missing = manifests.filter((manifest) => !copied.has(manifest))
    expect(missing, 'add these to the deps stage of the Dockerfile').toEqual([])
  })

  it('runs as a non-root user in production mode', () => {
    const runtime = stage('runtime')
    expect(runtime).toContain('USER node')
    expect(runtime.some((line) => /^ENV\s.*NODE_ENV=production/.test(line))).toBe(true)
  })
})
