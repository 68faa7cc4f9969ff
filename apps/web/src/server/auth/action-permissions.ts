import type { Permission } from '@fairlane/core'

/**
 * Every server action of the tenant app (`src/app/(app)/**`, files starting `'use server'`) and the
 * permissions it asks `authorize` for, in order. `action-permissions.test.ts` proves each action calls
 * exactly these (a new action missing here fails it), and `action-permissions.int.test.ts` proves,
 * per role against real memberships, who is refused. An empty list is an action open to anyone
 * signed in, and says why.
 */
export const ACTION_PERMISSIONS = {
  'actions.ts': {
    /** Signing out must work for a user whose last membership was removed. */
    signOutAction: [],
    switchTenantAction: ['tenant.read'],
  },
  'account/actions.ts': {
    /** Everyone edits their own profile (name, time zone). */
    saveProfileAction: ['profile.manage'],
  },
  'api-keys/actions.ts': {
    createKeyAction: ['apiKeys.manage'],
    revokeKeyAction: ['apiKeys.manage'],
  },
  'campaigns/actions.ts': {
    /** Saving a draft is `campaigns.manage`; scheduling or sending now also asks `campaigns.send`. */
    saveCampaignAction: ['campaigns.manage', 'campaigns.send'],
    cancelCampaignAction: ['campaigns.manage'],
    duplicateCampaignAction: ['campaigns.manage'],
    previewCampaignAction: ['campaigns.manage'],
    describeScheduleAction: ['campaigns.manage'],
    sendTestAction: ['campaigns.send'],
  },
  'contacts/actions.ts': {
    createContactAction: ['contacts.manage'],
    updateContactAction: ['contacts.manage'],
    unsubscribeContactAction: ['contacts.manage'],
    /** A resubscribe removes a suppression: mail reaches someone who said stop. */
    resubscribeContactAction: ['suppressions.remove'],
    deleteContactAction: ['contacts.manage'],
  },
  'contacts/list-actions.ts': {
    addMatchingToListAction: ['contacts.manage'],
  },
  'domains/actions.ts': {
    addDomainAction: ['domains.manage'],
    verifyDomainAction: ['domains.manage'],
    rotateDkimAction: ['domains.manage'],
    deleteDomainAction: ['domains.manage'],
  },
  'lists/actions.ts': {
    createListAction: ['contacts.manage'],
    renameListAction: ['contacts.manage'],
    deleteListAction: ['contacts.manage'],
    addMembersByEmailAction: ['contacts.manage'],
    addSelectedContactsAction: ['contacts.manage'],
    removeMemberAction: ['contacts.manage'],
  },
  'members/actions.ts': {
    inviteMemberAction: ['members.manage'],
    revokeInvitationAction: ['members.manage'],
    changeMemberRoleAction: ['members.manage'],
    removeMemberAction: ['members.manage'],
    /** Leaving is removing oneself: every role may (core refuses the last owner). */
    leaveTenantAction: ['tenant.read'],
  },
  'messages/actions.ts': {
    /** Cancelling a scheduled or not yet taken message: the same people who may send campaigns' mail. */
    cancelMessageAction: ['campaigns.manage'],
  },
  'segments/actions.ts': {
    createSegmentAction: ['contacts.manage'],
    renameSegmentAction: ['contacts.manage'],
    deleteSegmentAction: ['contacts.manage'],
  },
  'settings/actions.ts': {
    saveDefaultSenderAction: ['settings.manage'],
    saveTrackingSettingsAction: ['settings.manage'],
  },
  'suppressions/actions.ts': {
    removeSuppressionAction: ['suppressions.remove'],
    addSuppressionsAction: ['suppressions.add'],
  },
  'templates/actions.ts': {
    saveTemplateAction: ['templates.manage'],
    deleteTemplateAction: ['templates.manage'],
  },
  'webhooks/actions.ts': {
    createWebhookAction: ['webhooks.manage'],
    updateWebhookAction: ['webhooks.manage'],
    setWebhookEnabledAction: ['webhooks.manage'],
    sendTestEventAction: ['webhooks.manage'],
    deleteWebhookAction: ['webhooks.manage'],
    rotateWebhookSecretAction: ['webhooks.manage'],
    replayDeliveriesAction: ['webhooks.manage'],
  },
} as const satisfies Record<string, Record<string, readonly Permission[]>>

export type ActionFile = keyof typeof ACTION_PERMISSIONS

/** Every (file, action, permissions) of the table, for tests that walk it. */
export function actionTable(): Array<{ file: string; action: string; permissions: readonly Permission[] }> {
  return Object.entries(ACTION_PERMISSIONS).flatMap(([file, actions]) =>
    Object.entries(actions).map(([action, permissions]) => ({
      file,
      action,
      permissions: permissions as readonly Permission[],
    })),
  )
}
