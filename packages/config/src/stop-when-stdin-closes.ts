import type { Readable, Writable } from 'node:stream'
import type { Config } from './env'

export interface StdinWatchOptions {
  input?: Readable
  outputs?: Writable[]
  /** What "shut down" means; by default a SIGTERM to this process, so its own graceful shutdown runs. */
  stop?: () => void
}

/**
 * With `STOP_WHEN_STDIN_CLOSES=true` (set by `pnpm start` for web, worker and sink): shut down when
 * standard input reaches its end. The launcher holds the other end of that pipe and never writes to
 * it, so it closes exactly when the launcher is gone — by SIGKILL too, which no handler of the
 * launcher's can see — and the process drains through the same path as on SIGTERM instead of living
 * on, orphaned, holding its port.
 *
 * Call it once, from a process's entry, as soon as its config is loaded: until its SIGTERM handler
 * is installed, a SIGTERM simply ends the process, which is right for one still booting.
 */
export function stopWhenStdinCloses(
  config: Pick<Config, 'STOP_WHEN_STDIN_CLOSES'>,
  options: StdinWatchOptions = {},
): void {
  if (!config.STOP_WHEN_STDIN_CLOSES) return
  const input = options.input ?? process.stdin
  const stop = options.stop ?? (() => process.kill(process.pid, 'SIGTERM'))
  // The launcher also read our stdout and stderr. Once it is gone, writing to them fails with EPIPE,
  // and an unhandled stream error would end the drain half way: the lines have no reader left, so
  // dropping them is all there is to do. Any other error still surfaces.
  for (const output of options.outputs ?? [process.stdout, process.stderr]) {
    output.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error
    })
  }
  let stopped = false
  const onClose = () => {
    if (stopped) return
    stopped = true
    stop()
  }
  input.once('end', onClose)
  input.once('close', onClose)
  // A broken pipe is a closed one; reading it has no other failure worth staying alive for.
  input.once('error', onClose)
  // Nothing is ever written to it; read (and drop) so that the end is seen.
  input.on('data', () => {})
  input.resume()
  // The pipe alone must not keep a process alive that has otherwise finished.
  ;(input as Readable & { unref?: () => void }).unref?.()
}
