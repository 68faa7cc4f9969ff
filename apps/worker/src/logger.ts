import { LOG_ERROR_SERIALIZERS } from '@fairlane/config'
import pino, { type DestinationStream, type Logger } from 'pino'

/**
 * JSON lines on stdout; every line about a message carries tenantId, messageId, lane and jobId.
 * Errors go through the log-error serializer: codes and statement names, never query parameters.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, base: { service: 'worker' }, serializers: LOG_ERROR_SERIALIZERS }
  return destination ? pino(options, destination) : pino(options)
}
