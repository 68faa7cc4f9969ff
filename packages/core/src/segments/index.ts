export { type FilterTextResult, formatFilter, parseFilterText } from './filter-text'
export type { CampaignUsingSegment, SegmentStore, SegmentView } from './ports'
export { createSegment, deleteSegment, renameSegment } from './save-segment'
export {
  createdBoundary,
  FILTER_OPERATORS,
  type FilterCondition,
  type FilterOperator,
  filterIssues,
  MAX_FILTER_CONDITIONS,
  MAX_IN_VALUES,
  parseSegmentFilter,
  type SegmentFilter,
  segmentFilterSchema,
} from './segment-filter'
export { MAX_SEGMENT_NAME_LENGTH, validateSegmentName } from './segment-name'
