import { randomBytes } from 'node:crypto'

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567'

/** The return-path host of a domain is `<label>.<domain>`. */
export const DEFAULT_RETURN_PATH_LABEL = 'fl-bounces'

/**
 * A DKIM selector: `fl` + the year and month (UTC) + 4 random base32 characters, e.g.
 * `fl202612k3ba`. The month tells a tenant reading DNS which key is which; the random part keeps two
 * rotations in one month apart. A domain never reuses one (the rotation reducer refuses it).
 */
export function newDkimSelector(now: Date, random: (bytes: number) => Buffer = randomBytes): string {
  const month = `${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, '0')}`
  const suffix = [...random(4)].map((byte) => BASE32[byte & 31]).join('')
  return `fl${month}${suffix}`
}

/** The value of the ownership TXT (`fairlane-verification=<token>`): 128 random bits. */
export function newOwnershipToken(random: (bytes: number) => Buffer = randomBytes): string {
  return random(16).toString('hex')
}
