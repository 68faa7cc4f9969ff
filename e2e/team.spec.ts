import { randomUUID } from 'node:crypto'
import { type Browser, expect, type Page, test } from '@playwright/test'
import { signUp } from './support/accounts'
import { sinkMessages } from './support/mail-sink'

/**
 * Team accounts end to end: an invitation mailed through the platform's own lanes to the sink, accepted
 * into a new account (a member: no API keys page, but campaigns) and into an existing one (a user in
 * two tenants who switches between them and sees only each one's data).
 */

async function newPage(browser: Browser): Promise<Page> {
  return (await browser.newContext()).newPage()
}

/** Invites `email` from the Members page and answers the link mailed to it, as the sink received it. */
async function invite(page: Page, email: string, role: 'member' | 'admin'): Promise<string> {
  await page.goto('/members')
  const form = page.getByTestId('invite-form')
  await form.getByLabel('Email').fill(email)
  await form.getByLabel('Role').selectOption(role)
  await form.getByRole('button', { name: 'Send invitation' }).click()
  await expect(form.getByRole('status')).toHaveText(`Invitation sent to ${email}.`)
  // The address may have had mail before (an existing account's verification link): the one wanted
  // is the mail carrying an invitation link, and only one such.
  const invitationLinks = async () =>
    (await sinkMessages(page.request, { to: email }))
      .map((mail) => INVITATION_LINK.exec(mail.text ?? '')?.[0])
      .filter((link): link is string => link !== undefined)
  await expect.poll(async () => (await invitationLinks()).length, { timeout: 20_000 }).toBe(1)
  const [link] = await invitationLinks()
  if (!link) throw new Error(`no invitation mail to ${email}`)
  return link
}

const INVITATION_LINK = /https?:\/\/\S+\/invite\/[\w-]+/

async function addContact(page: Page, email: string) {
  await page.goto('/contacts/new')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Name').fill('Team test')
  await page.getByRole('button', { name: 'Add contact' }).click()
  await expect(page).toHaveURL(/\/contacts\/[0-9a-f-]{36}/)
}

test('an owner invites a member, who accepts from the mail, cannot open API keys, and creates a campaign', async ({
  browser,
}) => {
  // Two browsers, a mail through the platform's lanes and a dozen pages: slow on a loaded machine.
  test.setTimeout(120_000)
  const id = randomUUID().slice(0, 8)
  const ownerPage = await newPage(browser)
  const owner = await signUp(ownerPage)
  const memberEmail = `member-${id}@e2e.example.test`
  const link = await invite(ownerPage, memberEmail, 'member')

  const memberPage = await newPage(browser)
  await memberPage.goto(link)
  await expect(memberPage.getByTestId('invitation-summary')).toContainText(owner.company)
  const join = memberPage.getByTestId('join-sign-up')
  await join.getByLabel('Your name').fill('Invited Member')
  await expect(join.getByLabel('Email')).toHaveValue(memberEmail)
  await join.getByLabel('Password').fill(`pw-${randomUUID()}`)
  await join.getByRole('button', { name: 'Create account and join' }).click()
  await expect(memberPage).toHaveURL(/\/dashboard/, { timeout: 15_000 })
  await expect(memberPage.getByTestId('tenant-name')).toHaveText(owner.company)
  // The plan is the owner's business.
  await expect(memberPage.getByTestId('plan')).toHaveCount(0)

  // The link is spent.
  const again = await newPage(browser)
  await again.goto(link)
  await expect(again.getByTestId('invitation-refused')).toContainText('already accepted')

  // A member: no API keys in the nav, and the page itself is a 403.
  await expect(
    memberPage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }),
  ).toHaveCount(0)
  const keys = await memberPage.goto('/api-keys')
  expect(keys?.status()).toBe(403)

  // But campaigns are a member's work.
  await memberPage.goto('/campaigns/new')
  await memberPage.getByLabel('Name', { exact: true }).fill(`Member campaign ${id}`)
  await memberPage.getByLabel('Subject').fill('Hello')
  await memberPage.getByLabel('HTML body').fill('<p>Hello from the team</p>')
  await memberPage.getByLabel('Save as draft (do not schedule yet)').check()
  await memberPage.getByRole('button', { name: 'Save draft' }).click()
  await expect(memberPage).toHaveURL(/\/campaigns\/[0-9a-f-]{36}$/, { timeout: 15_000 })
  await memberPage.goto('/campaigns')
  await expect(memberPage.getByRole('row', { name: new RegExp(`Member campaign ${id}`) })).toBeVisible()

  // The owner sees the new member with their role.
  await ownerPage.goto('/members')
  await expect(ownerPage.getByTestId(`role-${memberEmail}`)).toHaveText('member')
})

test('a user in two tenants switches between them and sees only each one’s data', async ({ browser }) => {
  test.setTimeout(120_000)
  const id = randomUUID().slice(0, 8)
  const alicePage = await newPage(browser)
  const alice = await signUp(alicePage, { company: `Alice Co ${id}` })
  const aliceContact = `alice-contact-${id}@example.test`
  await addContact(alicePage, aliceContact)

  const bobPage = await newPage(browser)
  const bob = await signUp(bobPage, { company: `Bob Co ${id}` })
  const bobContact = `bob-contact-${id}@example.test`
  await addContact(bobPage, bobContact)

  // Bob, signed in, accepts Alice's invitation with his existing account.
  const link = await invite(alicePage, bob.email, 'admin')
  await bobPage.goto(link)
  await expect(bobPage.getByText(`Signed in as ${bob.email}.`)).toBeVisible()
  await bobPage.getByRole('button', { name: 'Accept invitation' }).click()
  await expect(bobPage).toHaveURL(/\/dashboard/, { timeout: 15_000 })
  await expect(bobPage.getByTestId('tenant-name')).toHaveText(alice.company)

  const contacts = bobPage.getByRole('table', { name: 'Contacts' })
  await bobPage.goto('/contacts')
  await expect(contacts).toContainText(aliceContact)
  await expect(contacts).not.toContainText(bobContact)

  const switchTo = async (company: string, role: string) => {
    await bobPage.getByLabel('Switch tenant').selectOption({ label: `${company} (${role})` })
    await bobPage.getByRole('button', { name: 'Switch' }).click()
    await expect(bobPage.getByTestId('tenant-name')).toHaveText(company)
  }
  await switchTo(bob.company, 'owner')
  await bobPage.goto('/contacts')
  await expect(contacts).toContainText(bobContact)
  await expect(contacts).not.toContainText(aliceContact)

  await switchTo(alice.company, 'admin')
  await bobPage.goto('/contacts')
  await expect(contacts).toContainText(aliceContact)
  await expect(contacts).not.toContainText(bobContact)
})
