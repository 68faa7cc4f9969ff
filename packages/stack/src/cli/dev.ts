import { run } from './start'

run('dev').catch((error: Error) => {
  console.error(`fairlane: ${error.message}`)
  process.exit(1)
})
