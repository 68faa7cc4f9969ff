export type { SendErrorClassification } from './classification'
export { classifySendError, toSendError } from './classify-send-error'
export { PermanentSendError } from './permanent-send-error'
export { TransientSendError } from './transient-send-error'
