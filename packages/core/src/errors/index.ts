export {
  APP_ERROR_CODES,
  AppError,
  type AppErrorCode,
  type AppErrorOptions,
  type FieldIssue,
  isAppError,
  type RateLimitName,
  validationFailed,
} from './app-error'
export { dotted, fieldIssues } from './zod-issues'
