import { randomBytes, scrypt } from 'node:crypto'

/**
 * A password hash in better-auth's own format (`<salt hex>:<scrypt key hex>`, N 16384, r 16, p 1,
 * 64-byte key, the NFKC-normalised password, the salt's hex text as the salt), so the seeded admin
 * signs in through the ordinary form. The stack package seeds the database before the web app runs
 * and does not depend on better-auth; e2e/admin.spec.ts signs in with it, which is what proves the
 * two agree.
 */
export function hashPasswordLikeBetterAuth(password: string): Promise<string> {
  const salt = randomBytes(16).toString('hex')
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize('NFKC'),
      salt,
      64,
      { N: 16384, r: 16, p: 1, maxmem: 128 * 16384 * 16 * 2 },
      (error, key) => (error ? reject(error) : resolve(`${salt}:${key.toString('hex')}`)),
    )
  })
}
