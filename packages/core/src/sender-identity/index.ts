export {
  buildReturnPath,
  DEFAULT_RETURN_PATH_PREFIX,
  parseReturnPath,
  type ReturnPathInput,
} from './return-path'
