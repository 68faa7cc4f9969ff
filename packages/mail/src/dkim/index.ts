export { type DkimKey, type DkimSignOptions, dkimSign } from './dkim-sign'
export { dkimBodyHash } from './relaxed-body'
