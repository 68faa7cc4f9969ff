import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { envSchema } from '@fairlane/config'
import { Deployment } from 'kubernetes-models/apps/v1'
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2'
import { Job } from 'kubernetes-models/batch/v1'
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1'
import type { IContainer, IPodSpec, IProbe } from 'kubernetes-models/v1'
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1'
import { describe, expect, it } from 'vitest'
import { parseAllDocuments } from 'yaml'

/**
 * No Kubernetes cluster runs where the tests run, so deploy/kubernetes is checked instead of applied:
 * every object against the Kubernetes OpenAPI schema (kubernetes-models), then the properties the
 * platform rests on — probes on routes and ports the processes really serve, grace periods longer
 * than the forced exit, only variables the config schema knows, and selectors that select.
 */
const root = fileURLToPath(new URL('../../..', import.meta.url))
const directory = join(root, 'deploy/kubernetes')

interface K8sObject {
  apiVersion: string
  kind: string
  metadata: { name: string; labels?: Record<string, string> }
  // biome-ignore lint/suspicious/noExplicitAny: each kind's shape is checked by its model below
  [field: string]: any
}

const files = readdirSync(directory).filter((name) => name.endsWith('.yaml'))
const documents = files.flatMap((file) =>
  parseAllDocuments(readFileSync(join(directory, file), 'utf8')).map((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]?.message}`)
    return { file, object: document.toJS() as K8sObject }
  }),
)
const objects = documents
  .map((document) => document.object)
  .filter((object) => object.kind !== 'Kustomization')
const ofKind = (kind: string) => objects.filter((object) => object.kind === kind)

/** The model that validates each kind we ship; a kind missing here fails the schema test. */
const models: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1 Deployment': Deployment,
  'autoscaling/v2 HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1 Job': Job,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'v1 ConfigMap': ConfigMap,
  'v1 Secret': Secret,
  'v1 Service': Service,
}

/** What each process's entry serves for an orchestrator: HTTP routes on one port, TCP on others. */
const servers: Record<string, { httpPort: string; routesIn: string; tcpPorts: string[] }> = {
  'apps/web/src/server/main.ts': {
    httpPort: 'WEB_PORT',
    routesIn: 'apps/web/src/server/api/catalog/health.ts',
    tcpPorts: [],
  },
  'apps/worker/src/main.ts': {
    httpPort: 'WORKER_METRICS_PORT',
    routesIn: 'apps/worker/src/metrics-server.ts',
    tcpPorts: [],
  },
  'apps/inbound/src/main.ts': {
    httpPort: 'INBOUND_HTTP_PORT',
    routesIn: 'apps/inbound/src/http-server.ts',
    tcpPorts: ['INBOUND_SMTP_PORT'],
  },
  'apps/submission/src/main.ts': {
    httpPort: 'SUBMISSION_HTTP_PORT',
    routesIn: 'apps/submission/src/http-server.ts',
    tcpPorts: ['SUBMISSION_PORT', 'SUBMISSION_TLS_PORT'],
  },
}

const schemaKeys = Object.keys(envSchema.shape) as (keyof typeof envSchema.shape)[]
const configMap = ofKind('ConfigMap').find((object) => object.metadata.name === 'fairlane-config')
const secret = ofKind('Secret').find((object) => object.metadata.name === 'fairlane-secrets')

/** A variable's value in a container: its own `env`, else the ConfigMap, else the schema's default. */
function setting(container: IContainer, name: keyof typeof envSchema.shape): string {
  const own = container.env?.find((entry) => entry.name === name)?.value
  if (own !== undefined) return own
  const shared = configMap?.data?.[name] as string | undefined
  if (shared !== undefined) return shared
  return String(envSchema.shape[name].parse(undefined))
}

const entryOf = (container: IContainer) => container.command?.find((part) => part.endsWith('.ts')) ?? ''

function portNumber(container: IContainer, port: number | string | undefined): number | undefined {
  if (typeof port === 'number') return port
  return container.ports?.find((entry) => entry.name === port)?.containerPort
}

const deployments = ofKind('Deployment')
const podSpec = (object: K8sObject) => object.spec.template.spec as IPodSpec
const matches = (selector: Record<string, string>, labels: Record<string, string> | undefined) =>
  Object.entries(selector).every(([key, value]) => labels?.[key] === value)

describe('deploy/kubernetes', () => {
  it('holds every process the platform runs in production, and a migrate Job', () => {
    const entries = deployments.flatMap((object) => podSpec(object).containers.map(entryOf))
    expect(entries.sort()).toEqual([
      'apps/inbound/src/main.ts',
      'apps/submission/src/main.ts',
      'apps/web/src/server/main.ts',
      'apps/worker/src/main.ts',
      'apps/worker/src/main.ts',
    ])
    const jobs = ofKind('Job').map((object) => podSpec(object).containers.map(entryOf))
    expect(jobs).toEqual([['packages/db/src/migrate-cli.ts']])
  })

  it.each(documents.filter((document) => document.object.kind !== 'Kustomization'))(
    '$file: $object.kind $object.metadata.name is valid against the Kubernetes schema',
    ({ object }) => {
      const Model = models[`${object.apiVersion} ${object.kind}`]
      expect(Model, `no model for ${object.apiVersion} ${object.kind}`).toBeDefined()
      expect(() => new (Model as NonNullable<typeof Model>)(object as never).validate()).not.toThrow()
    },
  )

  it('splits the lanes as Compose does: bulk in worker, critical and default in worker-tx', () => {
    const lanes = Object.fromEntries(
      deployments
        .filter((object) => podSpec(object).containers.some((c) => entryOf(c) === 'apps/worker/src/main.ts'))
        .map((object) => [
          object.metadata.name,
          setting(podSpec(object).containers[0] as IContainer, 'WORKER_LANES'),
        ]),
    )
    expect(lanes).toEqual({ 'fairlane-worker': 'bulk', 'fairlane-worker-tx': 'critical,default' })
  })

  it('uses only variables the config schema reads', () => {
    const names = [
      ...Object.keys(configMap?.data ?? {}),
      ...Object.keys(secret?.stringData ?? {}),
      ...[...deployments, ...ofKind('Job')].flatMap((object) =>
        podSpec(object).containers.flatMap((c) => (c.env ?? []).map((entry) => entry.name)),
      ),
    ]
    expect(names.length).toBeGreaterThan(0)
    expect(names.filter((name) => !schemaKeys.includes(name as never))).toEqual([])
    for (const object of [...deployments, ...ofKind('Job')]) {
      for (const source of podSpec(object).containers.flatMap((c) => c.envFrom ?? [])) {
        if (source.configMapRef) expect(source.configMapRef.name).toBe(configMap?.metadata.name)
        if (source.secretRef) expect(source.secretRef.name).toBe(secret?.metadata.name)
      }
    }
  })

  it('probes only routes and ports each process serves, and every long-running container is probed', () => {
    for (const object of deployments) {
      for (const container of podSpec(object).containers) {
        const server = servers[entryOf(container)]
        expect(server, `${object.metadata.name}: unknown entry ${entryOf(container)}`).toBeDefined()
        if (!server) continue
        const routes = readFileSync(join(root, server.routesIn), 'utf8')
        const httpPort = Number(setting(container, server.httpPort as never))
        const tcpPorts = server.tcpPorts.map((name) => Number(setting(container, name as never)))
        const probes = [container.startupProbe, container.livenessProbe, container.readinessProbe]
        expect(container.livenessProbe, `${object.metadata.name}: liveness`).toBeDefined()
        expect(container.readinessProbe, `${object.metadata.name}: readiness`).toBeDefined()
        for (const probe of probes.filter((p): p is IProbe => p !== undefined)) {
          const where = `${object.metadata.name}/${container.name}`
          if (probe.httpGet) {
            expect(portNumber(container, probe.httpGet.port), `${where}: probe port`).toBe(httpPort)
            expect(routes, `${where}: ${probe.httpGet.path} in ${server.routesIn}`).toContain(
              `'${probe.httpGet.path}'`,
            )
          } else if (probe.tcpSocket) {
            expect(tcpPorts, `${where}: tcp probe port`).toContain(
              portNumber(container, probe.tcpSocket.port),
            )
          } else {
            throw new Error(`${where}: a probe neither httpGet nor tcpSocket`)
          }
        }
        const served = [httpPort, ...tcpPorts]
        for (const port of container.ports ?? []) expect(served).toContain(port.containerPort)
      }
    }
  })

  it('gives every pod a grace period longer than its preStop plus the forced exit (SHUTDOWN_FORCE_EXIT_MS)', () => {
    for (const object of deployments) {
      const spec = podSpec(object)
      for (const container of spec.containers) {
        const forcedExitMs = Number(setting(container, 'SHUTDOWN_FORCE_EXIT_MS'))
        const sleep = container.lifecycle?.preStop?.exec?.command
        const preStopMs = sleep?.[0] === 'sleep' ? Number(sleep[1]) * 1000 : 0
        expect(spec.terminationGracePeriodSeconds, object.metadata.name).toBeDefined()
        expect((spec.terminationGracePeriodSeconds ?? 30) * 1000, object.metadata.name).toBeGreaterThan(
          preStopMs + forcedExitMs,
        )
      }
    }
  })

  it('sets resource requests and limits on every container', () => {
    for (const object of [...deployments, ...ofKind('Job')]) {
      for (const container of podSpec(object).containers) {
        expect(container.resources?.requests, object.metadata.name).toMatchObject({
          cpu: expect.anything(),
          memory: expect.anything(),
        })
        expect(container.resources?.limits?.memory, object.metadata.name).toBeDefined()
      }
    }
  })

  it('has one PodDisruptionBudget per Deployment, selecting its pods and only those', () => {
    const budgets = ofKind('PodDisruptionBudget')
    for (const object of deployments) {
      const selector = object.spec.selector.matchLabels as Record<string, string>
      expect(matches(selector, object.spec.template.metadata.labels), object.metadata.name).toBe(true)
      const covering = budgets.filter((budget) =>
        matches(budget.spec.selector.matchLabels, object.spec.template.metadata.labels),
      )
      expect(covering.length, `${object.metadata.name}: budgets`).toBe(1)
      if (object.spec.replicas !== undefined && covering[0]?.spec.minAvailable !== undefined) {
        expect(
          covering[0].spec.minAvailable,
          `${object.metadata.name}: a budget that allows no eviction`,
        ).toBeLessThan(object.spec.replicas)
      }
    }
    for (const budget of budgets) {
      const selected = deployments.filter((object) =>
        matches(budget.spec.selector.matchLabels, object.spec.template.metadata.labels),
      )
      expect(selected.length, `${budget.metadata.name}: deployments`).toBe(1)
    }
  })

  it('scales web, and only web, on CPU', () => {
    const web = deployments.find((object) =>
      podSpec(object).containers.some((c) => entryOf(c) === 'apps/web/src/server/main.ts'),
    )
    const autoscalers = ofKind('HorizontalPodAutoscaler')
    expect(autoscalers.map((hpa) => hpa.spec.scaleTargetRef)).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', name: web?.metadata.name },
    ])
    expect(autoscalers[0]?.spec.metrics).toContainEqual(
      expect.objectContaining({ type: 'Resource', resource: expect.objectContaining({ name: 'cpu' }) }),
    )
    // A fixed count in the Deployment would undo the autoscaler's on every apply.
    expect(web?.spec.replicas).toBeUndefined()
  })

  it('points every Service at the pods and named ports of one Deployment', () => {
    for (const service of ofKind('Service')) {
      const selected = deployments.filter((object) =>
        matches(service.spec.selector, object.spec.template.metadata.labels),
      )
      expect(selected.length, service.metadata.name).toBe(1)
      const names = podSpec(selected[0] as K8sObject).containers.flatMap((c) =>
        (c.ports ?? []).map((p) => p.name),
      )
      for (const port of service.spec.ports) expect(names, service.metadata.name).toContain(port.targetPort)
    }
  })

  it('lists in kustomization.yaml every file but the Secret template and the migrate Job', () => {
    const kustomization = documents.find((document) => document.object.kind === 'Kustomization')?.object
    expect(kustomization?.resources.sort()).toEqual(
      files
        .filter((file) => !['kustomization.yaml', 'secret.example.yaml', 'migrate-job.yaml'].includes(file))
        .sort(),
    )
  })
})
