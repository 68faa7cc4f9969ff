// Run by the e2e webServer command before the platform starts: the suites' database is dropped and
// made again, so every run migrates from nothing. A database kept between runs remembers migrations
// that branches applied in another order (drizzle then skips the ones dated before the newest it
// has), and rows earlier runs left behind; neither should decide whether a run passes.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
// The e2e package has no dependencies of its own; this is the db package's client.
const postgres = require('../packages/db/node_modules/postgres')

const target = new URL(process.env.DATABASE_URL)
const name = decodeURIComponent(target.pathname.slice(1))
if (!/^fairlane_e2e\w*$/.test(name)) {
  console.error(`e2e: refusing to drop "${name}": only a database named fairlane_e2e… is the suites' own`)
  process.exit(1)
}
const server = new URL(target)
server.pathname = '/postgres'
const sql = postgres(server.toString(), { max: 1, onnotice: () => {} })
try {
  await sql.unsafe(`drop database if exists "${name}" with (force)`)
  await sql.unsafe(`create database "${name}"`)
} finally {
  await sql.end()
}
