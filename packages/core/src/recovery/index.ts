export type {
  AcceptedSend,
  LaneJobState,
  LaneJobs,
  StrandedMessage,
  SweepStore,
  SweepTransaction,
} from './ports'
export {
  type RecordedMessage,
  type RepublishedMessage,
  type SweepDeps,
  type SweepInput,
  type SweepOutcome,
  sweepStrandedMessages,
} from './sweep-stranded-messages'
