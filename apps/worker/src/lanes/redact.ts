const ADDRESS = /[^\s<>()[\]"',;:@]+@[^\s<>()[\]"',;:@]+/g

/**
 * SMTP replies often quote the recipient ("<bob@example.com>: Recipient address rejected"). Dead
 * letters live in Redis and logs are shipped around, and both must carry ids, never addresses.
 */
export function redactAddresses(text: string): string {
  return text.replace(ADDRESS, '<address>')
}
