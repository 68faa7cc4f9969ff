/** The hint beside a From field: which domains it may use, or how to get one. */
export function fromFieldHint(verifiedDomains: readonly string[]): string {
  if (verifiedDomains.length === 0) {
    return 'You have no verified sending domain yet: add one under Domains. Until then mail goes from the platform’s address with your name.'
  }
  const names = verifiedDomains.join(', ')
  return `"Name" <local@domain> or an address on a verified domain: ${names}.`
}
