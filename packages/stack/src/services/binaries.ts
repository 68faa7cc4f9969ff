import { constants, existsSync } from 'node:fs'
import { access, readdir, realpath } from 'node:fs/promises'
import { delimiter, dirname, join } from 'node:path'
import { isRoot, run } from './process'

export interface PostgresBinaries {
  initdb: string
  postgres: string
  pgCtl: string
}

/** What to do when the servers are neither reachable nor installable here; shown as is to the user. */
export const HOW_TO_GET_SERVICES = [
  'Either install them:  sudo apt-get install -y postgresql redis-server',
  'or run them in containers:  docker compose up -d postgres redis-queue',
  '  (then DATABASE_URL=postgres://postgres:postgres@127.0.0.1:55432/fairlane REDIS_URL=redis://127.0.0.1:56379),',
  'or set DATABASE_URL / REDIS_URL to servers that are running.',
].join('\n')

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

export async function findOnPath(name: string): Promise<string | null> {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && (await isExecutable(join(dir, name)))) return join(dir, name)
  }
  return null
}

/** A directory holding all three PostgreSQL server programs, so initdb, postgres and pg_ctl share a version. */
async function completeSet(dir: string): Promise<PostgresBinaries | null> {
  const set = { initdb: join(dir, 'initdb'), postgres: join(dir, 'postgres'), pgCtl: join(dir, 'pg_ctl') }
  for (const path of Object.values(set)) if (!(await isExecutable(path))) return null
  return set
}

/** On PATH first (following symlinks to the real bin directory), else Debian's /usr/lib/postgresql/<highest>/bin. */
export async function findPostgresBinaries(): Promise<PostgresBinaries | null> {
  const onPath = await findOnPath('postgres')
  if (onPath) {
    const found = await completeSet(dirname(await realpath(onPath)))
    if (found) return found
  }
  let versions: string[] = []
  try {
    versions = await readdir('/usr/lib/postgresql')
  } catch {
    return null
  }
  versions.sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a))
  for (const version of versions) {
    const found = await completeSet(join('/usr/lib/postgresql', version, 'bin'))
    if (found) return found
  }
  return null
}

export function findRedisServer(): Promise<string | null> {
  return findOnPath('redis-server')
}

/** Only root on Debian/Ubuntu may install for the user; anyone else gets the commands to run. */
async function canInstallWithApt(): Promise<boolean> {
  return isRoot() && existsSync('/etc/debian_version') && (await findOnPath('apt-get')) !== null
}

async function aptInstall(pkg: string, log: (line: string) => void): Promise<void> {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  const install = () => run('apt-get', ['install', '-y', '--no-install-recommends', pkg], { env })
  log(`installing ${pkg} with apt-get…`)
  try {
    await install()
  } catch {
    // A fresh machine often has no package lists yet (or stale ones): refresh only then, it is slow.
    log('apt-get install failed; running apt-get update and trying again…')
    await run('apt-get', ['update'], { env })
    await install()
  }
}

/** `why` says what we needed them for (which address did not answer), so the message stands on its own. */
export async function ensurePostgresBinaries(
  why: string,
  log: (line: string) => void,
): Promise<PostgresBinaries> {
  const found = await findPostgresBinaries()
  if (found) return found
  const missing = `${why}, and the PostgreSQL server programs (initdb, postgres, pg_ctl) are neither on PATH nor in /usr/lib/postgresql/*/bin.`
  if (!(await canInstallWithApt())) throw new Error(`${missing}\n${HOW_TO_GET_SERVICES}`)
  await aptInstall('postgresql', log)
  const installed = await findPostgresBinaries()
  if (!installed)
    throw new Error(
      `${missing} Installing the postgresql package did not provide them.\n${HOW_TO_GET_SERVICES}`,
    )
  return installed
}

export async function ensureRedisServer(why: string, log: (line: string) => void): Promise<string> {
  const found = await findRedisServer()
  if (found) return found
  const missing = `${why}, and redis-server is not on PATH.`
  if (!(await canInstallWithApt())) throw new Error(`${missing}\n${HOW_TO_GET_SERVICES}`)
  await aptInstall('redis-server', log)
  const installed = await findRedisServer()
  if (!installed)
    throw new Error(
      `${missing} Installing the redis-server package did not provide it.\n${HOW_TO_GET_SERVICES}`,
    )
  return installed
}
