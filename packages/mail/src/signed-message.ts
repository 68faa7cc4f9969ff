import { type DkimSignature, SigningFailedError } from '@fairlane/core/delivery'
import { dkimSign } from './dkim'
import { DKIM_HEADER_FIELD_NAMES } from './dkim-signature-check'

/**
 * The composed message (one buffer, as it goes out) signed for its domain over the fields
 * `DKIM_HEADER_FIELD_NAMES` lists. A signer that throws throws `SigningFailedError` here, naming the
 * domain and why, so the message is held before a connection is asked for: never sent unsigned.
 */
export function signForSending(message: Buffer, dkim: DkimSignature): Buffer {
  try {
    return dkimSign(message, dkim, { headerFieldNames: DKIM_HEADER_FIELD_NAMES })
  } catch (error) {
    throw new SigningFailedError(
      `could not DKIM-sign the message for ${dkim.domainName}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    )
  }
}
