import type { Readable } from 'node:stream'
import SMTPConnection from 'nodemailer/lib/smtp-connection'

/** What the inbound server answered to one message: its reply, or the refusal with its code. */
export type SmtpResult =
  | { ok: true; response: string }
  | { ok: false; code: number | undefined; message: string }

/**
 * Sends one message over its own connection with nodemailer's SMTP client, from the null sender as
 * bounces come. No SIZE is announced, so an oversized message is streamed as DATA.
 */
export function sendReport(
  port: number,
  to: string | string[],
  message: string | Buffer | Readable,
): Promise<SmtpResult> {
  const connection = new SMTPConnection({ host: '127.0.0.1', port, ignoreTLS: true, socketTimeout: 30_000 })
  return new Promise<SmtpResult>((resolve) => {
    const refused = (error: Error & { responseCode?: number }) =>
      resolve({ ok: false, code: error.responseCode, message: error.message })
    connection.once('error', refused)
    connection.connect(() => {
      connection.send({ from: '', to: Array.isArray(to) ? to : [to] }, message, (error, info) => {
        connection.quit()
        if (error) refused(error)
        else resolve({ ok: true, response: info.response })
      })
    })
  })
}
