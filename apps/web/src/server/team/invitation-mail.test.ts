import { describe, expect, it } from 'vitest'
import { invitationMail } from './invitation-mail'

describe('invitationMail', () => {
  it('says who invited, where, with which role, and escapes names in the HTML', () => {
    const mail = invitationMail({
      invitation: {
        id: 'i',
        tenantId: 't',
        tenantName: 'Acme <Ltd>',
        email: 'new@example.com',
        role: 'member',
        invitedBy: 'boss@example.com',
        createdAt: new Date('2026-12-05T10:00:00Z'),
        expiresAt: new Date('2026-12-12T10:00:00Z'),
        acceptedAt: null,
        revokedAt: null,
      },
      acceptUrl: 'https://app.example/invite/abc',
      appName: 'Fairlane',
    })
    expect(mail.to).toBe('new@example.com')
    expect(mail.subject).toBe('boss@example.com invited you to Acme <Ltd> on Fairlane')
    expect(mail.text).toContain('https://app.example/invite/abc')
    expect(mail.text).toContain('2026-12-12 10:00 UTC')
    expect(mail.html).toContain('Acme &lt;Ltd&gt;')
    expect(mail.html).toContain('href="https://app.example/invite/abc"')
  })
})
