export {
  APP_ERROR_CODES,
  AppError,
  type AppErrorCode,
  type AppErrorOptions,
  type FieldIssue,
  isAppError,
  RATE_LIMIT_NAMES,
  type RateLimitName,
  validationFailed,
} from './app-error'
export { dotted, fieldIssues } from './zod-issues'
