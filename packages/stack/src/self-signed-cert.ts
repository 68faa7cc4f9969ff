import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'

/**
 * A self-signed certificate and key for local SMTP submission (STARTTLS and implicit TLS), made once
 * with the openssl CLI and kept under `dir` (`.data/submission-tls` for `pnpm start`). Clients must be
 * told to accept it (nodemailer: `tls: { rejectUnauthorized: false }`); production sets its own pair.
 */
export function ensureSelfSignedCert(
  dir: string,
  hostName = 'localhost',
): { certPath: string; keyPath: string } {
  const certPath = join(dir, 'cert.pem')
  const keyPath = join(dir, 'key.pem')
  if (existsSync(certPath) && existsSync(keyPath)) return { certPath, keyPath }
  mkdirSync(dir, { recursive: true })
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-sha256',
      '-days',
      '825',
      '-subj',
      `/CN=${hostName}`,
      '-addext',
      `subjectAltName=DNS:${hostName},IP:127.0.0.1`,
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ],
    { stdio: 'ignore' },
  )
  return { certPath, keyPath }
}
