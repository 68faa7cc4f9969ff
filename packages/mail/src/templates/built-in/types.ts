export interface BuiltInContent {
  subject: string
  html: string
  text: string
}
