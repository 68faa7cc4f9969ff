#!/usr/bin/env node
// Plain JavaScript on purpose: this runs before dependencies (and so tsx) may be installed.
// It installs them when needed, then hands over to the TypeScript command in src/cli/.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
const command = process.argv[2]
const commands = new Set(['start', 'dev', 'test', 'serve'])
if (!commands.has(command)) {
  console.error(`usage: run.mjs <${[...commands].join('|')}> [args]`)
  process.exit(2)
}

function installIfNeeded() {
  const marker = join(root, 'node_modules', '.modules.yaml')
  const lock = join(root, 'pnpm-lock.yaml')
  const fresh = existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs
  if (fresh) return
  console.log('fairlane: installing dependencies (pnpm install --frozen-lockfile)')
  const result = spawnSync('pnpm', ['install', '--frozen-lockfile'], { cwd: root, stdio: 'inherit' })
  if (result.error) {
    console.error(
      `fairlane: could not run pnpm (${result.error.message}); install it with: npm i -g pnpm@12.4.2`,
    )
    process.exit(1)
  }
  if (result.status !== 0) process.exit(result.status ?? 1)
}

installIfNeeded()
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    join(root, 'packages', 'stack', 'src', 'cli', `${command}.ts`),
    ...process.argv.slice(3),
  ],
  { cwd: root, stdio: 'inherit' },
)
// The child handles Ctrl-C itself (it shares our terminal's process group); for a SIGTERM sent to
// this process alone, pass it on so the child can shut the platform down in order.
for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
process.on('SIGINT', () => {})
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
