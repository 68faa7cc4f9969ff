export { discardDeadLetter } from './discard-dead-letter'
export type * from './ports'
export { type ReplayedDeadLetter, replayDeadLetter } from './replay-dead-letter'
