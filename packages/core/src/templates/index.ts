export { checkTemplateContent } from './check-template-content'
export { createTemplate, type TemplateDeps } from './create-template'
export { deleteTemplate } from './delete-template'
export { getTemplate } from './get-template'
export { listTemplates } from './list-templates'
export type { StoredTemplate, TemplateStore, TemplateVersionSummary } from './ports'
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
