import { mkdir, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { createProbeConnection } from '@fairlane/queue'
import { ensureRedisServer } from './binaries'
import { errorMessage, run, tail, waitFor } from './process'
import type { StopBySignal } from './types'

/**
 * A Redis Cluster on this machine from the installed `redis-server` (7.0+): `masters` masters with
 * `replicasPerMaster` replicas each, every node a daemon on 127.0.0.1 with its own cluster config
 * file and no persistence (`--save '' --appendonly no`: a test cluster starts empty each time). For
 * `pnpm start` with REDIS_CLUSTER=true and no REDIS_URL, the `cluster` test project and benchmarks.
 */
export interface RedisClusterOptions {
  /** Each node keeps its cluster config file, pid file and log here (`node-<port>.*`). */
  dataDir: string
  /** First port (the nodes take consecutive ones); default: ports the kernel says are free. */
  basePort?: number
  masters?: number
  replicasPerMaster?: number
  log?: (line: string) => void
}

export interface ClusterMaster {
  port: number
  /** The node's cluster id. */
  id: string
  /** Inclusive slot ranges it serves. */
  slots: Array<[number, number]>
  /** Ports of its replicas. */
  replicaPorts: number[]
}

export interface LocalRedisCluster {
  /** Every node as a comma-separated seed list: REDIS_URL with REDIS_CLUSTER=true. */
  url: string
  ports: number[]
  /** The masters now (a failover changes them), as the cluster reports them. */
  masters(): Promise<ClusterMaster[]>
  /**
   * A coordinated failover (`CLUSTER FAILOVER` on a replica) of the master serving `key`'s slot, or
   * of the master on `port`: resolves once the replica is master, every node agrees on who serves
   * the slot and the cluster is `ok` on every node. No write acknowledged before it is lost: the
   * master stops taking writes until its replica has caught up.
   */
  failover(target: { key: string } | { port: number }): Promise<{ fromPort: number; toPort: number }>
  stop(): Promise<void>
  /** How a reaper stops the nodes should this process die without calling stop(). */
  stopBySignal: StopBySignal[]
}

const START_TIMEOUT_MS = 60_000
const CLIENT_TIMEOUT_MS = 3_000

export async function startRedisCluster(options: RedisClusterOptions): Promise<LocalRedisCluster> {
  const masters = options.masters ?? 3
  const replicasPerMaster = options.replicasPerMaster ?? 1
  if (!(Number.isInteger(masters) && masters >= 3)) {
    throw new RangeError(`a Redis Cluster needs at least 3 masters, got ${masters}`)
  }
  if (!(Number.isInteger(replicasPerMaster) && replicasPerMaster >= 0)) {
    throw new RangeError(`replicasPerMaster must be a whole number, got ${replicasPerMaster}`)
  }
  const log = options.log ?? (() => {})
  const count = masters * (1 + replicasPerMaster)
  const ports =
    options.basePort === undefined
      ? await freePorts(count)
      : Array.from({ length: count }, (_, index) => (options.basePort as number) + index)
  const redisServer = await ensureRedisServer('A local Redis Cluster needs redis-server', log)
  const redisCli = join(dirname(redisServer), 'redis-cli')
  await mkdir(options.dataDir, { recursive: true })
  const startedAt = Date.now()
  const files = (port: number) => ({
    config: join(options.dataDir, `node-${port}.conf`),
    pid: join(options.dataDir, `node-${port}.pid`),
    log: join(options.dataDir, `node-${port}.log`),
  })

  const stopNodes = async () => {
    await Promise.all(
      ports.map(async (port) => {
        await onNode(port, (node) => node.call('SHUTDOWN', 'NOSAVE')).catch(() => {})
        await waitFor(async () => !(await answers(port)), {
          what: `Redis node ${port} to stop`,
          timeoutMs: 15_000,
        })
      }),
    )
  }

  try {
    await Promise.all(
      ports.map(async (port) => {
        // A config file left by an earlier cluster on these ports would make the node rejoin it.
        await rm(files(port).config, { force: true })
        await run(redisServer, [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--dir',
          options.dataDir,
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          files(port).config,
          // How soon an unreachable master is failed over; short, so a killed master comes back in seconds.
          '--cluster-node-timeout',
          '3000',
          '--save',
          '',
          '--appendonly',
          'no',
          '--maxmemory-policy',
          'noeviction',
          '--daemonize',
          'yes',
          '--pidfile',
          files(port).pid,
          '--logfile',
          files(port).log,
        ])
      }),
    )
    await waitFor(async () => (await Promise.all(ports.map(answers))).every(Boolean), {
      what: `Redis nodes on ${ports.join(', ')}`,
      timeoutMs: START_TIMEOUT_MS,
    })
    await run(
      redisCli,
      [
        '--cluster',
        'create',
        ...ports.map((port) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        String(replicasPerMaster),
        '--cluster-yes',
      ],
      { timeoutMs: START_TIMEOUT_MS },
    )
    await waitUntilSettled(ports, masters, replicasPerMaster)
  } catch (error) {
    const logs = await Promise.all(
      ports.map(async (port) => `${files(port).log}:\n${await tail(files(port).log, 5)}`),
    )
    await stopNodes().catch(() => {})
    throw new Error(
      `Could not start a Redis Cluster on ${ports.join(', ')}: ${errorMessage(error)}\n${logs.join('\n')}`,
    )
  }
  log(
    `redis cluster: ${masters} masters × ${1 + replicasPerMaster} on ${ports.join(', ')} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s (${options.dataDir})`,
  )

  let stopping: Promise<void> | undefined
  return {
    url: ports.map((port) => `redis://127.0.0.1:${port}`).join(','),
    ports,
    ...controlRedisCluster(ports, log),
    stop: () => {
      stopping ??= (async () => {
        await stopNodes()
        await Promise.all(ports.map((port) => rm(files(port).config, { force: true })))
        log(`redis cluster: stopped ${ports.join(', ')}`)
      })()
      return stopping
    },
    stopBySignal: ports.map((port) => ({
      name: `redis:${port}`,
      pidFile: files(port).pid,
      signal: 'SIGTERM',
    })),
  }
}

/**
 * `masters()` and `failover()` of a cluster already running on `ports` (all its nodes), e.g. one a
 * test's global setup started in another process.
 */
export function controlRedisCluster(
  ports: number[],
  log: (line: string) => void = () => {},
): Pick<LocalRedisCluster, 'masters' | 'failover'> {
  return {
    masters: () => readMasters(ports),
    async failover(target) {
      const current = await readMasters(ports)
      const slot =
        'key' in target
          ? Number(await onNode(ports[0] as number, (node) => node.cluster('KEYSLOT', target.key)))
          : -1
      const master = current.find((candidate) =>
        'port' in target
          ? candidate.port === target.port
          : candidate.slots.some(([from, to]) => slot >= from && slot <= to),
      )
      if (!master) throw new Error(`no master serves ${JSON.stringify(target)}`)
      const replicaPort = master.replicaPorts[0]
      if (replicaPort === undefined) throw new Error(`master ${master.port} has no replica to fail over to`)
      const anySlot = master.slots[0]?.[0] ?? 0
      await onNode(replicaPort, (node) => node.cluster('FAILOVER'))
      await waitFor(
        async () => {
          const owners = await Promise.all(
            ports.map((port) => slotOwnerPort(port, anySlot).catch(() => undefined)),
          )
          if (!owners.every((owner) => owner === replicaPort)) return false
          return (await Promise.all(ports.map(clusterOk))).every(Boolean)
        },
        {
          what: `the failover of ${master.port} to ${replicaPort}`,
          timeoutMs: START_TIMEOUT_MS,
          intervalMs: 100,
        },
      )
      log(`redis cluster: failed over ${master.port} → ${replicaPort}`)
      return { fromPort: master.port, toPort: replicaPort }
    },
  }
}

/** Every node says `cluster_state:ok` and knows every other, and every replica is in sync with its master. */
async function waitUntilSettled(ports: number[], masters: number, replicasPerMaster: number): Promise<void> {
  await waitFor(
    async () => {
      const checks = await Promise.all(
        ports.map(async (port) => {
          if (!(await clusterOk(port))) return false
          const nodes = parseClusterNodes(
            await onNode(port, (node) => node.cluster('NODES') as Promise<string>),
          )
          if (nodes.length !== ports.length) return false
          if (nodes.filter((node) => node.role === 'master').length !== masters) return false
          const replication = await onNode(port, (node) => node.info('replication'))
          return /role:master/.test(replication) || /master_link_status:up/.test(replication)
        }),
      )
      if (!checks.every(Boolean)) return false
      const found = await readMasters(ports)
      return found.every((master) => master.replicaPorts.length === replicasPerMaster)
    },
    {
      what: 'the Redis Cluster to settle (cluster_state:ok on every node, replicas in sync)',
      timeoutMs: START_TIMEOUT_MS,
    },
  )
}

interface NodeLine {
  id: string
  port: number
  role: 'master' | 'replica'
  masterId: string | undefined
  failed: boolean
  slots: Array<[number, number]>
}

/** `CLUSTER NODES` lines: `<id> <ip:port@cport> <flags> <master> <ping> <pong> <epoch> <link> <slot>...`. */
export function parseClusterNodes(text: string): NodeLine[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [id = '', address = '', flags = '', master = '-', , , , , ...slots] = line.split(' ')
      const flagList = flags.split(',')
      return {
        id,
        port: Number(address.split('@')[0]?.split(':').pop()),
        role: flagList.includes('master') ? 'master' : 'replica',
        masterId: master === '-' ? undefined : master,
        failed: flagList.includes('fail') || flagList.includes('fail?'),
        // Slots being migrated (`[5461->-<id>]`) are not served yet; a fresh cluster has none.
        slots: slots
          .filter((slot) => !slot.startsWith('['))
          .map((slot) => {
            const [from, to = from] = slot.split('-').map(Number)
            return [from, to] as [number, number]
          }),
      } satisfies NodeLine
    })
}

/** The masters as the first answering node sees them. */
async function readMasters(ports: number[]): Promise<ClusterMaster[]> {
  let lastError: unknown
  for (const port of ports) {
    try {
      const nodes = parseClusterNodes(await onNode(port, (node) => node.cluster('NODES') as Promise<string>))
      return nodes
        .filter((node) => node.role === 'master' && !node.failed && node.slots.length > 0)
        .map((master) => ({
          port: master.port,
          id: master.id,
          slots: master.slots,
          replicaPorts: nodes
            .filter((node) => node.masterId === master.id && !node.failed)
            .map((node) => node.port),
        }))
    } catch (error) {
      lastError = error
    }
  }
  throw new Error(`no node of the cluster answers: ${errorMessage(lastError)}`)
}

async function slotOwnerPort(port: number, slot: number): Promise<number | undefined> {
  const nodes = parseClusterNodes(await onNode(port, (node) => node.cluster('NODES') as Promise<string>))
  return nodes.find(
    (node) => node.role === 'master' && node.slots.some(([from, to]) => slot >= from && slot <= to),
  )?.port
}

async function clusterOk(port: number): Promise<boolean> {
  try {
    return /cluster_state:ok/.test((await onNode(port, (node) => node.cluster('INFO'))) as string)
  } catch {
    return false
  }
}

async function answers(port: number): Promise<boolean> {
  try {
    return (await onNode(port, (node) => node.ping())) === 'PONG'
  } catch {
    return false
  }
}

type NodeClient = ReturnType<typeof createProbeConnection> & { isCluster: false }

/** One command on one node through a one-shot connection (no redirects followed: node-local commands). */
async function onNode<T>(port: number, command: (node: NodeClient) => Promise<T>): Promise<T> {
  const node = createProbeConnection(
    { url: `redis://127.0.0.1:${port}`, cluster: false },
    CLIENT_TIMEOUT_MS,
    {
      enableReadyCheck: false,
    },
  ) as NodeClient
  node.on('error', () => {})
  try {
    await node.connect()
    return await command(node)
  } finally {
    node.disconnect()
  }
}

/**
 * `count` consecutive ports that are free now, with their cluster bus ports (port + 10000) free too,
 * from a random base below the kernel's ephemeral range (so a client socket does not take one).
 */
async function freePorts(count: number): Promise<number[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * (9_900 - count))
    const ports = Array.from({ length: count }, (_, index) => base + index)
    const free = await Promise.all([...ports, ...ports.map((port) => port + 10_000)].map(canListen))
    if (free.every(Boolean)) return ports
  }
  throw new Error(`found no ${count} consecutive free ports (with their bus ports) between 20000 and 30000`)
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}
