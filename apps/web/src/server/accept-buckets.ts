/** The accept buckets are shared with the SMTP submission server: they live in `@fairlane/queue`. */
export { acceptPlanOf, createAcceptBuckets } from '@fairlane/queue'
