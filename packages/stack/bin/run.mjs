#!/usr/bin/env node
// Plain JavaScript on purpose: this runs before pnpm, the dependencies and so tsx may be installed.
// It makes sure pnpm (the version package.json pins) and the dependencies are there, then runs the
// TypeScript command in src/cli/ in this same process: one launcher process, so that a signal to it,
// or its death, is the launcher's own, with no wrapper between it and the platform's processes.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
const command = process.argv[2]
const commands = new Set(['start', 'dev', 'test'])
if (!commands.has(command)) {
  console.error(`usage: run.mjs <${[...commands].join('|')}> [args]`)
  process.exit(2)
}

/**
 * `npm start` / `npm test` on a machine with Node but no pnpm: install the pinned pnpm with npm into
 * the project's git-ignored `.data/pnpm` (no root needed, nothing outside the clone changed) and put
 * it first on PATH for everything started from here. Corepack is not used: it cannot verify pnpm's
 * signature on machines without access to its key server.
 */
function ensurePnpm() {
  // A look along PATH, not a run of `pnpm --version`: this happens on every start.
  const onPath = (process.env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, 'pnpm')))
  if (onPath) return
  const { packageManager } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const version = /^pnpm@(\d+\.\d+\.\d+)/.exec(packageManager ?? '')?.[1]
  if (!version) {
    console.error(
      `fairlane: package.json's packageManager should pin pnpm (pnpm@x.y.z), not "${packageManager}"`,
    )
    process.exit(1)
  }
  const prefix = join(root, '.data', 'pnpm')
  const bin = join(prefix, 'bin')
  if (!existsSync(join(bin, 'pnpm'))) {
    console.log(
      `fairlane: pnpm is not installed; installing pnpm@${version} (package.json's packageManager) into .data/pnpm with npm`,
    )
    const npm = spawnSync(
      'npm',
      ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', `pnpm@${version}`],
      { cwd: root, stdio: 'inherit' },
    )
    if (npm.error || npm.status !== 0) {
      const cause = npm.error ? npm.error.message : `npm exited with code ${npm.status}`
      console.error(
        `fairlane: could not install pnpm@${version} (${cause}); install it with: npm i -g pnpm@${version}`,
      )
      process.exit(1)
    }
  }
  process.env.PATH = `${bin}${delimiter}${process.env.PATH ?? ''}`
}

function installIfNeeded() {
  const marker = join(root, 'node_modules', '.modules.yaml')
  const lock = join(root, 'pnpm-lock.yaml')
  const fresh = existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs
  if (fresh) return
  console.log('fairlane: installing dependencies (pnpm install --frozen-lockfile)')
  const result = spawnSync('pnpm', ['install', '--frozen-lockfile'], { cwd: root, stdio: 'inherit' })
  if (result.error) {
    console.error(`fairlane: could not run pnpm (${result.error.message})`)
    process.exit(1)
  }
  if (result.status !== 0) process.exit(result.status ?? 1)
}

ensurePnpm()
installIfNeeded()
// tsx's loader, registered now that it is installed; the command's module then sees the same
// argv as if it had been run as `node --import tsx <command>.ts [args]`.
await import('tsx')
const entry = join(root, 'packages', 'stack', 'src', 'cli', `${command}.ts`)
process.argv = [process.argv[0], entry, ...process.argv.slice(3)]
await import(pathToFileURL(entry).href)
