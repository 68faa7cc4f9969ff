export { discardDeadLetter } from './discard-dead-letter'
export type * from './ports'
export { type ReplayedDeadLetter, replayDeadLetter } from './replay-dead-letter'
export {
  type DeadLetterRestore,
  RECENT_FAILURES_MS,
  type RestoreDeadLettersDeps,
  type RestoreDeadLettersInput,
  restoreDeadLetters,
} from './restore-dead-letters'
