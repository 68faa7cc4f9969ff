import type { Logger } from 'pino'
import type { Sql } from 'postgres'

/**
 * LISTENs on `channel` (on a connection of its own, outside any pool or PgBouncer): `wake` on each
 * notice, and once LISTEN is (re)established, since notices sent while the connection was away are
 * lost. Without a connection, or when LISTEN fails, it answers undefined (a failure is logged as
 * "`who` could not LISTEN; `fallback`") and the caller's own poll or interval carries on.
 */
export async function listenOrPoll(
  sql: Sql | undefined,
  input: { channel: string; wake: () => void; logger: Logger; who: string; fallback: string },
): Promise<{ unlisten(): Promise<void> } | undefined> {
  if (!sql) return undefined
  const { channel, wake, logger } = input
  try {
    return await sql.listen(channel, wake, () => {
      logger.debug({ channel }, `${input.who} listening`)
      wake()
    })
  } catch (error) {
    logger.warn(
      { err: (error as Error).message, channel },
      `${input.who} could not LISTEN; ${input.fallback}`,
    )
    return undefined
  }
}
