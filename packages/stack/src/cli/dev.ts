import { run } from './start'

run('dev', process.argv.slice(2)).catch((error: Error) => {
  console.error(`fairlane: ${error.message}`)
  process.exit(1)
})
