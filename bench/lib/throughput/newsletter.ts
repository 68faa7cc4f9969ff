import type { CampaignContent } from '../seeder'

const stories = [
  ['Winter collection', 'Warm layers made from recycled wool, now in six colours and every size.'],
  ['Free repairs', 'Bring any jacket bought from us since 2020 to a store and we mend it at no cost.'],
  ['Members evening', 'Thursday from 18:00: early access, a short talk by our designers, and tea.'],
  ['Gift cards', 'Send one by email in a minute, with your own message, valid for two years.'],
] as const

const storyHtml = stories
  .map(
    ([title, body], index) => `
<tr><td style="padding:16px 24px;border-bottom:1px solid #eee">
  <h2 style="margin:0 0 6px;font-size:18px;color:#1a1a1a">${title}</h2>
  <p style="margin:0 0 8px;font-size:14px;line-height:1.5;color:#444">${body}</p>
  <a href="https://shop.example.com/news/${index + 1}?utm_source=newsletter&amp;utm_medium=email" style="color:#0b6bcb;font-size:14px">Read more</a>
</td></tr>`,
  )
  .join('')

/**
 * A realistic newsletter: about 3 KB of table-laid-out HTML with inline styles and 1 KB of text (4 KB rendered),
 * personalised from the contact (name, first name, city, plan, points). The renderer adds the
 * unsubscribe footer and the List-Unsubscribe headers, as for every campaign.
 */
export const NEWSLETTER: CampaignContent = {
  name: 'December newsletter',
  subject: '{{firstName}}, your December picks from {{city}}',
  html: `<!doctype html>
<html><head><meta charset="utf-8"><title>December newsletter</title></head>
<body style="margin:0;padding:0;background:#f4f4f4;font-family:Helvetica,Arial,sans-serif">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" style="background:#f4f4f4">
<tr><td align="center" style="padding:24px 0">
<table role="presentation" width="600" cellspacing="0" cellpadding="0" style="background:#ffffff;border-radius:6px">
<tr><td style="padding:24px;background:#1a1a1a;color:#ffffff;font-size:22px;font-weight:bold">Northwind Outfitters</td></tr>
<tr><td style="padding:24px">
  <p style="margin:0 0 12px;font-size:16px;color:#1a1a1a">Hello {{name}},</p>
  <p style="margin:0 0 12px;font-size:14px;line-height:1.5;color:#444">Here is what is new this month in {{city}}.
  As a {{plan}} member you have <strong>{{points}} points</strong> to spend before the end of the year.</p>
</td></tr>${storyHtml}
<tr><td style="padding:24px;font-size:12px;color:#888">Northwind Outfitters, 12 Harbour Street, Porto.
You receive this newsletter at {{email}} because you joined our members programme.</td></tr>
</table></td></tr></table>
</body></html>`,
  text: `Hello {{name}},

Here is what is new this month in {{city}}. As a {{plan}} member you have {{points}} points to spend
before the end of the year.

${stories.map(([title, body], index) => `${title}\n${body}\nhttps://shop.example.com/news/${index + 1}`).join('\n\n')}

Northwind Outfitters, 12 Harbour Street, Porto.
You receive this newsletter at {{email}} because you joined our members programme.`,
}
