import MailComposer from 'nodemailer/lib/mail-composer'
import { describe, expect, it } from 'vitest'
import { listSubmittedAttachments } from './submitted-attachments'

describe('listSubmittedAttachments', () => {
  it('lists each attachment of submitted MIME with its decoded size, inline ones included', async () => {
    const raw = await new MailComposer({
      from: 'a@acme.test',
      to: 'b@example.test',
      subject: 'Files',
      text: 'see attached',
      html: '<img src="cid:logo@acme">',
      attachments: [
        { filename: 'invoice.pdf', contentType: 'application/pdf', content: Buffer.alloc(12_345, 1) },
        { filename: 'logo.png', contentType: 'image/png', content: Buffer.alloc(77, 2), cid: 'logo@acme' },
      ],
    })
      .compile()
      .build()
    const listed = await listSubmittedAttachments(raw)
    expect(listed.sort((a, b) => a.filename.localeCompare(b.filename))).toEqual([
      { filename: 'invoice.pdf', contentType: 'application/pdf', sizeBytes: 12_345 },
      { filename: 'logo.png', contentType: 'image/png', sizeBytes: 77 },
    ])
  })

  it('lists nothing for a message without attachments or for bytes that are not MIME', async () => {
    expect(await listSubmittedAttachments(Buffer.from('Subject: hi\r\n\r\nhello\r\n'))).toEqual([])
    expect(await listSubmittedAttachments(Buffer.from([0, 1, 2, 3]))).toEqual([])
  })
})
