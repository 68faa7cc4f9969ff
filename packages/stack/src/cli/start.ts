import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { dnsHelpLines } from '../local-dns'
import { mxHelpLines, mxModeEnv } from '../mx-mode'
import {
  launchPlatform,
  type Mode,
  PLATFORM_PARTS,
  type PlatformPart,
  type PreparedPlatform,
  preparePlatform,
  stopAll,
  webProcessEnv,
} from '../platform'
import { type ManagedProcess, runToEnd } from '../processes'
import type { Reaper } from '../reaper'
import { DEMO_ADMIN_EMAIL } from '../seed'
import { webBuildIsStale } from '../web-build'

/**
 * `pnpm start` (and `pnpm dev` with watchers): the whole platform on this machine, from a fresh
 * clone, in one command. Ctrl-C stops it in order, including any PostgreSQL/Redis it started.
 *
 * Nothing it started outlives it, however it ends: SIGINT, SIGTERM (also to its whole process
 * group, as `timeout` and CI runners send it), SIGHUP and a closed output (a runner that stopped
 * reading: each write then fails with EPIPE) all stop web, worker, sink and inbound in order first. Against
 * what no handler sees (SIGKILL, a crash), each child stops itself when the stdin pipe we hold
 * closes, and the reaper stops what is left, including the servers we started.
 *
 * `--only web,worker,sink,inbound`: just those processes (`--only sink` for a mail sink to develop against).
 * `--mx`: MX mode, with the sink playing the receiving providers (`mx-mode.ts`).
 */
export async function run(mode: Mode, args: string[] = []): Promise<void> {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..')
  const log = (line: string) => console.log(`fairlane: ${line}`)
  const mx = args.includes('--mx')
  const only = parseOnly(args.filter((arg) => arg !== '--mx'))
  const mxEnv = mx ? mxModeEnv(process.env) : undefined
  const started = Date.now()
  let prepared: PreparedPlatform | undefined
  let processes: ManagedProcess[] = []
  let reaper: Reaper | undefined
  let stopping = false
  const stop = async (reason: string, code: number) => {
    if (stopping) return
    stopping = true
    log(
      `${reason}: stopping ${processes.length > 0 ? processes.map((p) => p.name).join(', ') : 'the launch'}`,
    )
    try {
      await stopAll(processes)
      await prepared?.stopServices()
      // Only once all of it stopped in order: else the reaper finishes the job after we exit.
      reaper?.release()
    } finally {
      process.exit(code)
    }
  }
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    process.on(signal, () => void stop(signal, 0))
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      // The reader left (a CI runner after its timeout): nothing can be shown any more, but the
      // children must still be stopped before we go, or they live on holding their ports.
      if (error.code !== 'EPIPE') throw error
      void stop('output closed', 0)
    })
  }

  prepared = await preparePlatform(root, { ...process.env, ...mxEnv?.shared }, log)
  if (mode === 'start' && (!only || only.includes('web')) && webBuildIsStale(root)) {
    log('building the web app (next build)')
    const code = await runToEnd('pnpm', ['--filter', '@fairlane/web', 'build'], {
      cwd: root,
      // As the web process will run: a production build, local when the caller did not ask for production.
      env: { ...prepared.env, ...webProcessEnv(prepared.env, 'start') },
    })
    if (code !== 0) {
      await prepared.stopServices()
      throw new Error(`next build failed with exit code ${code}`)
    }
  }

  const launched = launchPlatform(root, prepared, mode, {
    only,
    ...(mxEnv ? { workerEnv: mxEnv.worker } : {}),
    reapServers: prepared.stopBySignal,
    spawned: (spawned, spawnedReaper) => {
      processes = spawned
      reaper = spawnedReaper
    },
  })
  const platform = await launched.catch(async (error: Error) => {
    // A stop that came during the launch made the processes exit early: it ends the process itself.
    if (stopping) await new Promise<never>(() => {})
    // launchPlatform stopped the processes; the servers we started go too, as on any other stop.
    await prepared?.stopServices()
    throw error
  })
  void platform.firstExit.then(({ name, code }) => void stop(`${name} exited with code ${code}`, 1))

  const { urls } = platform
  const { secrets } = prepared
  const runs = (part: PlatformPart) => !only || only.includes(part)
  console.log(
    [
      '',
      `Fairlane is ready (${((Date.now() - started) / 1000).toFixed(1)} s)`,
      runs('web') && `  web            ${urls.web}`,
      runs('sink') && `  mail inbox     ${urls.inbox}    (SMTP ${urls.smtp})`,
      ...(runs('sink') ? dnsHelpLines(prepared.config, urls.inbox) : []),
      ...(mx ? mxHelpLines(prepared.env) : []),
      runs('worker') && `  worker metrics ${urls.metrics}`,
      runs('inbound') &&
        `  inbound        SMTP ${urls.inboundSmtp} (bounces, complaints)    metrics ${urls.inboundMetrics}`,
      runs('submission') &&
        `  submission     SMTP ${urls.submission} (STARTTLS, self-signed; user: anything, password: an API key)`,
      `  demo API key   ${secrets.DEMO_API_KEY}`,
      `  admin token    ${secrets.ADMIN_TOKEN}    (Authorization: Bearer … on /api/admin)`,
      runs('web') &&
        `  admin console  ${urls.web}/admin    sign in as ${DEMO_ADMIN_EMAIL} / ${secrets.DEMO_ADMIN_PASSWORD}`,
      '',
      'Ctrl-C stops everything.',
      '',
    ]
      .filter((line) => line !== false)
      .join('\n'),
  )
}

/** `--only a,b` or `--only=a,b`; undefined: every part. */
function parseOnly(args: string[]): PlatformPart[] | undefined {
  if (args.length === 0) return undefined
  const value = args[0] === '--only' ? args[1] : args[0]?.startsWith('--only=') ? args[0].slice(7) : undefined
  const extra = args.slice(args[0] === '--only' ? 2 : 1)
  const parts = (value ?? '').split(',').filter(Boolean)
  const known: readonly string[] = PLATFORM_PARTS
  if (parts.length === 0 || extra.length > 0 || parts.some((part) => !known.includes(part))) {
    throw new Error(
      `usage: pnpm start [--mx] [--only ${PLATFORM_PARTS.join(',')}] (got "${args.join(' ')}"): --only takes a comma-separated list of web, worker, sink, inbound and submission`,
    )
  }
  return parts as PlatformPart[]
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run('start', process.argv.slice(2)).catch((error: Error) => {
    console.error(`fairlane: ${error.message}`)
    process.exit(1)
  })
}
