import { describe, expect, it } from 'vitest'
import { renderBuiltIn } from './index'

function rendered(name: string, variables: Record<string, unknown>) {
  const outcome = renderBuiltIn(name, variables)
  if (!outcome?.ok) throw new Error(`expected ${name} to render: ${JSON.stringify(outcome)}`)
  return outcome.message
}

function issuesOf(name: string, variables: Record<string, unknown>) {
  const outcome = renderBuiltIn(name, variables)
  if (outcome === null || outcome.ok) throw new Error(`expected ${name} to be refused`)
  return outcome.issues
}

describe('built-in otp template', () => {
  it('puts the code in the HTML and text parts, never in the subject', () => {
    const message = rendered('otp', { code: '482913', appName: 'Acme', expiresInMinutes: 10 })
    expect(message.subject).toBe('Your Acme verification code')
    expect(message.subject).not.toContain('482913')
    expect(message.html).toContain('>482913</p>')
    expect(message.html).toContain('<html lang="en"')
    expect(message.html).toContain('role="presentation"')
    expect(message.text).toContain('482913')
    expect(message.text).toContain('This code expires in 10 minutes.')
    expect(message.template).toBe('otp')
    expect(message.variables).toEqual({ code: '482913', appName: 'Acme', expiresInMinutes: 10 })
  })

  it('reads well without the optional variables', () => {
    const message = rendered('otp', { code: 'AB12' })
    expect(message.subject).toBe('Your verification code')
    expect(message.text).not.toContain('expires')
    expect(rendered('otp', { code: 'AB12', expiresInMinutes: 1 }).text).toContain('expires in 1 minute.')
  })

  it('escapes the app name in HTML and keeps it plain in the subject', () => {
    const message = rendered('otp', { code: '1234', appName: 'Tom & <Jerry>' })
    expect(message.subject).toBe('Your Tom & <Jerry> verification code')
    expect(message.html).toContain('Tom &amp; &lt;Jerry&gt;')
    expect(message.html).not.toContain('<Jerry>')
  })

  it.each([
    [{}, 'variables.code', 'is required'],
    [{ code: 123456 }, 'variables.code', 'must be a string'],
    [{ code: '12' }, 'variables.code', 'must be 4 to 10 letters or digits'],
    [{ code: '12345678901' }, 'variables.code', 'must be 4 to 10 letters or digits'],
    [{ code: '12 34' }, 'variables.code', 'must be 4 to 10 letters or digits'],
    [{ code: '1234', appName: 'Acme\r\nBcc: x@evil.test' }, 'variables.appName', 'single line'],
    [{ code: '1234', appName: '' }, 'variables.appName', 'must not be empty'],
    [{ code: '1234', expiresInMinutes: 0 }, 'variables.expiresInMinutes', 'at least 1'],
    [{ code: '1234', expiresInMinutes: 2.5 }, 'variables.expiresInMinutes', 'whole number'],
    [{ code: '1234', expiresInMinutes: 1441 }, 'variables.expiresInMinutes', 'at most 1440'],
    [{ code: '1234', color: 'red' }, 'variables.color', 'not a recognized field'],
  ])('refuses %o, naming %s', (variables, path, message) => {
    const issues = issuesOf('otp', variables)
    expect(issues).toContainEqual({ path, message: expect.stringContaining(message) })
  })
})

describe('built-in password-reset template', () => {
  const resetUrl = 'https://acme.test/reset?token=abc&user=1'

  it('links the button and the fallback to the escaped URL', () => {
    const message = rendered('password-reset', { resetUrl, appName: 'Acme', expiresInMinutes: 30 })
    expect(message.subject).toBe('Reset your Acme password')
    expect(message.html).toContain('href="https://acme.test/reset?token=abc&amp;user=1"')
    expect(message.html).toContain('>Reset password</a>')
    expect(message.text).toContain(resetUrl)
    expect(message.text).toContain('This link expires in 30 minutes.')
  })

  it.each([
    [{}, 'is required'],
    [{ resetUrl: 'javascript:alert(1)' }, 'http:// or https://'],
    [{ resetUrl: '/relative/path' }, 'http:// or https://'],
    [{ resetUrl: 'https://acme.test/\r\nreset' }, 'control characters'],
    [{ resetUrl: 'https://acme.test/ reset' }, 'spaces'],
  ])('refuses resetUrl in %o', (variables, message) => {
    expect(issuesOf('password-reset', variables)).toContainEqual({
      path: 'variables.resetUrl',
      message: expect.stringContaining(message),
    })
  })
})

describe('built-in verify-email template', () => {
  const verifyUrl = 'https://app.test/api/auth/verify-email?token=abc&callbackURL=%2Fverified'

  it('links the button and the fallback to the escaped URL, and says when it expires', () => {
    const message = rendered('verify-email', { verifyUrl, appName: 'Fairlane', expiresInMinutes: 1440 })
    expect(message.subject).toBe('Verify your email for Fairlane')
    expect(message.html).toContain(
      'href="https://app.test/api/auth/verify-email?token=abc&amp;callbackURL=%2Fverified"',
    )
    expect(message.html).toContain('>Verify email</a>')
    expect(message.text).toContain(verifyUrl)
    expect(message.text).toContain('This link expires in 1440 minutes.')
    expect(message.template).toBe('verify-email')
  })

  it('reads well without the optional variables', () => {
    const message = rendered('verify-email', { verifyUrl })
    expect(message.subject).toBe('Verify your email address')
    expect(message.text).not.toContain('expires')
  })

  it.each([
    [{}, 'variables.verifyUrl', 'is required'],
    [{ verifyUrl: 'javascript:alert(1)' }, 'variables.verifyUrl', 'http:// or https://'],
    [{ verifyUrl: 'https://app.test/\r\nverify' }, 'variables.verifyUrl', 'control characters'],
    [{ verifyUrl, resetUrl: verifyUrl }, 'variables.resetUrl', 'not a recognized field'],
    [{ verifyUrl, expiresInMinutes: 1441 }, 'variables.expiresInMinutes', 'at most 1440'],
  ])('refuses %o, naming %s', (variables, path, message) => {
    expect(issuesOf('verify-email', variables)).toContainEqual({
      path,
      message: expect.stringContaining(message),
    })
  })
})

describe('renderBuiltIn', () => {
  it('returns null for a name that is not built in', () => {
    expect(renderBuiltIn('welcome', {})).toBeNull()
  })

  it('names the sending tenant when the request gives no appName; a given appName wins', () => {
    const named = renderBuiltIn('otp', { code: '123456' }, { appName: 'Bakery Bliss' })
    expect(named?.ok && named.message).toMatchObject({
      subject: 'Your Bakery Bliss verification code',
      text: expect.stringContaining('Enter this code in Bakery Bliss to continue:'),
    })
    const given = renderBuiltIn('otp', { code: '123456', appName: 'Bliss App' }, { appName: 'Bakery Bliss' })
    expect(given?.ok && given.message.subject).toBe('Your Bliss App verification code')
    const reset = renderBuiltIn(
      'password-reset',
      { resetUrl: 'https://example.com/reset?t=1' },
      { appName: 'Bakery Bliss' },
    )
    expect(reset?.ok && reset.message.html).toContain('Bakery Bliss')
  })

  it('leaves out a tenant name that could not go in a subject, rather than refusing the mail', () => {
    const outcome = renderBuiltIn('otp', { code: '123456' }, { appName: 'Two\nlines' })
    expect(outcome?.ok && outcome.message.subject).toBe('Your verification code')
  })
})
