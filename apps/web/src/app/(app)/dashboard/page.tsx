import { roleAllows, SUPPRESSION_REASONS } from '@fairlane/core'
import {
  countBacklog,
  countSentSince,
  listRecentCampaigns,
  listRecentMessages,
  onboardingProgress,
  type RecentCampaign,
  type RecentMessage,
} from '@fairlane/db/queries/dashboard'
import { countSuppressionsByReason } from '@fairlane/db/queries/suppressions'
import { findTenant } from '@fairlane/db/queries/tenants'
import { findTenantAdmissionPlan, readQuotaUsage } from '@fairlane/db/queries/usage'
import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { type DataColumn, DataTable } from '@/components/data-table'
import { LocalTime } from '@/components/local-time'
import { startOfDayInZone } from '@/components/local-time-format'
import { StatusBadge } from '@/components/status-badge'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import { planInWords } from '@/server/dashboard/plan-words'
import { getReaderTimeZone } from '@/server/reader-time-zone'
import { REASON_WORDS } from '../suppressions/reason-words'
import { failingDisabled } from '../webhooks/endpoint-status'
import { FailingWebhooksBanner } from '../webhooks/failing-banner'
import { webhookUseCases } from '../webhooks/use-cases'
import { QuotaBars } from './quota-bars'
import { ReputationBanner } from './reputation-banner'

export const metadata: Metadata = { title: 'Dashboard' }

const CAMPAIGN_COLUMNS: DataColumn<RecentCampaign>[] = [
  { header: 'Name', cell: (campaign) => <Link href={`/campaigns/${campaign.id}`}>{campaign.name}</Link> },
  { header: 'Status', cell: (campaign) => <StatusBadge status={campaign.status} /> },
  { header: 'Send time', cell: (campaign) => <LocalTime value={campaign.sendAt} empty="Not scheduled" /> },
]

const MESSAGE_COLUMNS: DataColumn<RecentMessage>[] = [
  { header: 'Recipient', cell: (message) => message.toAddress },
  { header: 'Template', cell: (message) => message.template ?? <span className="muted">custom</span> },
  { header: 'Lane', cell: (message) => message.lane },
  { header: 'Status', cell: (message) => <StatusBadge status={message.status} /> },
  { header: 'Created', cell: (message) => <LocalTime value={message.createdAt} /> },
]

export default async function DashboardPage() {
  const session = await requireTenantSession()
  const { db } = container().database
  const tenantId = session.tenantId
  const { zone } = await getReaderTimeZone()
  const now = new Date()
  const [
    tenant,
    sentToday,
    backlog,
    campaigns,
    messages,
    progress,
    suppressed,
    webhooks,
    ownPlan,
    quotaUsage,
  ] = await Promise.all([
    findTenant(db, { tenantId }),
    countSentSince(db, { tenantId, since: startOfDayInZone(new Date(), zone) }),
    countBacklog(db, { tenantId }),
    listRecentCampaigns(db, { tenantId, limit: 5 }),
    listRecentMessages(db, { tenantId, limit: 10 }),
    onboardingProgress(db, { tenantId }),
    countSuppressionsByReason(db, { tenantId }),
    webhookUseCases().list({ tenantId }),
    findTenantAdmissionPlan(db, { tenantId }),
    readQuotaUsage(db, { tenantId, now }),
  ])
  if (!tenant) notFound()
  const plan = planInWords(tenant.plan)
  const { config } = container()
  // The transactional part: the tenant's own (the platform admin's), the platform's filling the rest.
  const transactional = {
    ratePerSec: ownPlan?.transactional.ratePerSec ?? config.TRANSACTIONAL_RATE_PER_SEC,
    burst: ownPlan?.transactional.burst ?? config.TRANSACTIONAL_BURST,
  }
  const steps = [
    {
      done: progress.hasContacts,
      title: 'Add your contacts',
      detail: 'Import a CSV or add them one by one; lists group them for campaigns.',
      href: '/contacts/import',
      action: 'Import contacts',
    },
    {
      done: progress.hasVerifiedDomain,
      title: 'Send from your own domain',
      detail:
        'Add your domain and publish its DNS records: mail then goes out DKIM-signed as you. Until then it leaves from the platform’s address under your name.',
      href: '/domains',
      action: 'Add a domain',
    },
    {
      done: progress.hasApiKey || progress.hasCampaign,
      title: 'Create an API key or a campaign',
      detail: 'An API key sends login codes and receipts from your app; a campaign sends to your contacts.',
      href: progress.hasContacts ? '/campaigns/new' : '/api-keys',
      action: progress.hasContacts ? 'Create a campaign' : 'Create an API key',
    },
  ]
  const gettingStarted = !(progress.hasContacts && (progress.hasApiKey || progress.hasCampaign))

  return (
    <>
      <div className="page-header">
        <h1>{tenant.name}</h1>
      </div>
      <ReputationBanner stage={tenant.reputation.stage} reason={tenant.reputation.reason} />
      <FailingWebhooksBanner endpoints={failingDisabled(webhooks)} />
      {gettingStarted ? (
        <section className="card" aria-labelledby="first-steps" data-testid="first-steps">
          <h2 id="first-steps">First steps</h2>
          <ol className="checklist">
            {steps.map((step) => (
              <li key={step.title} data-done={step.done}>
                <span className="checklist-mark" aria-hidden="true">
                  {step.done ? '✓' : '○'}
                </span>
                <div>
                  <strong>{step.title}</strong>
                  <span className="visually-hidden">{step.done ? ' (done)' : ' (to do)'}</span>
                  <p className="muted">{step.detail}</p>
                  {!step.done && step.href ? <Link href={step.href}>{step.action}</Link> : null}
                </div>
              </li>
            ))}
          </ol>
        </section>
      ) : null}
      <dl className="stats">
        <div>
          <dt>Sent today ({zone})</dt>
          <dd>{sentToday.toLocaleString('en')}</dd>
        </div>
        <div>
          <dt>Backlog</dt>
          <dd>
            {(backlog.pending + backlog.queued).toLocaleString('en')}
            <small>
              {backlog.pending.toLocaleString('en')} pending · {backlog.queued.toLocaleString('en')} queued
            </small>
          </dd>
        </div>
        {/* The plan is billing-like: owners only (`plan.read`). */}
        {roleAllows(session.role, 'plan.read') ? (
          <div>
            <dt>Plan</dt>
            <dd data-testid="plan">
              {plan.rate}
              <small>
                {plan.detail} (rate {tenant.plan.ratePerSec}/s · burst {tenant.plan.burst} · weight{' '}
                {tenant.plan.weight})
              </small>
            </dd>
          </div>
        ) : null}
        {roleAllows(session.role, 'plan.read') ? (
          <div>
            <dt>Transactional plan</dt>
            <dd data-testid="transactional-plan">
              Up to {transactional.ratePerSec.toLocaleString('en')} emails per second
              <small>
                login codes and API mail, bursts of {transactional.burst.toLocaleString('en')} at once
              </small>
            </dd>
          </div>
        ) : null}
      </dl>
      {ownPlan ? <QuotaBars quota={ownPlan.quota} usage={quotaUsage} /> : null}

      <section className="card" aria-labelledby="suppressed-addresses">
        <h2 id="suppressed-addresses">Suppressed addresses</h2>
        <p className="muted">
          Addresses Fairlane does not mail, by why. <Link href="/suppressions">Manage suppressions</Link>
        </p>
        <dl className="stats" data-testid="suppression-counts">
          {SUPPRESSION_REASONS.map((reason) => (
            <div key={reason}>
              <dt>{REASON_WORDS[reason]}</dt>
              <dd>
                <Link
                  href={`/suppressions?reason=${reason}`}
                  aria-label={`${suppressed[reason].toLocaleString('en')} suppressed: ${REASON_WORDS[reason]}`}
                >
                  {suppressed[reason].toLocaleString('en')}
                </Link>
              </dd>
            </div>
          ))}
        </dl>
      </section>

      <section className="card" aria-labelledby="recent-campaigns">
        <h2 id="recent-campaigns">Recent campaigns</h2>
        <DataTable
          label="Recent campaigns"
          columns={CAMPAIGN_COLUMNS}
          rows={campaigns}
          rowKey={(campaign) => campaign.id}
          empty={
            <p className="muted">
              No campaigns yet. <Link href="/campaigns">Create your first campaign</Link>.
            </p>
          }
        />
      </section>

      <section className="card" aria-labelledby="recent-messages">
        <h2 id="recent-messages">Recent messages</h2>
        <DataTable
          label="Recent messages"
          columns={MESSAGE_COLUMNS}
          rows={messages}
          rowKey={(message) => message.id}
          empty={
            <p className="muted">
              No API messages yet. Create an <Link href="/api-keys">API key</Link> and call{' '}
              <code>POST /api/v1/messages</code>.
            </p>
          }
        />
        <p>
          <Link href="/messages">All messages</Link>
        </p>
      </section>
    </>
  )
}
