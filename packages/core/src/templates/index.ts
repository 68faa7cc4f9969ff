export { checkTemplateContent } from './check-template-content'
export { createTemplate, type TemplateDeps } from './create-template'
export { deleteTemplate } from './delete-template'
export { getTemplate } from './get-template'
export {
  DEFAULT_TEMPLATES_PAGE,
  listTemplates,
  MAX_TEMPLATES_PAGE,
  type TemplatePage,
  templatesQuerySchema,
} from './list-templates'
export type {
  StoredTemplate,
  TemplateInsert,
  TemplateLimits,
  TemplateStore,
  TemplateSummary,
  TemplateVersionSummary,
} from './ports'
export {
  MAX_TEMPLATE_NAME_CHARS,
  type NewTemplateRequest,
  newTemplateSchema,
  parseNewTemplate,
  parseTemplateChange,
  parseTemplateReplacement,
  TEMPLATE_SLUG_PATTERN,
  type TemplateChange,
  type TemplateContent,
  templateChangeSchema,
} from './template-request'
export { type UpdateTemplateInput, updateTemplate } from './update-template'
