// Bulk campaign rendering lives in ../campaign; exported here (the package's export map is fixed for now).
export * from '../campaign'
export {
  BUILT_IN_RENDERERS,
  type BuiltInContent,
  type OtpVariables,
  otpVariables,
  type PasswordResetVariables,
  passwordResetVariables,
  renderBuiltIn,
  renderOtp,
  renderPasswordReset,
} from './built-in'
export { type CustomContent, renderCustom } from './custom'
export { escapeHtml } from './escape-html'
export { textFromHtml } from './html-text'
export { type RenderContext, renderContent } from './render-content'
export { renderTenantTemplate, type TenantTemplate } from './tenant-template'
