-- Suppression scopes (issue 13, bug 1). A suppression now says which mail it stops:
--   'all'       every lane: hard bounces, complaints, manual entries;
--   'marketing' campaign mail only: unsubscribes (the person's sign-in codes and resets still go).
-- Existing rows: before this migration every suppression stopped every lane. Bounces, complaints and
-- manual entries keep exactly that meaning (the column's default, 'all'). Rows whose reason is
-- 'unsubscribe' become 'marketing': an unsubscribe never meant "no login codes", that was the bug.
-- Contacts unsubscribed from the contact page before it wrote a suppression get their
-- marketing-scoped row now, dated by their unsubscribe, so the API's list shows every unsubscribe.
-- tenant_audit_log: the tenant's own audit trail (a resubscribe on the person's request).
CREATE TABLE "tenant_audit_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "tenant_audit_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" uuid NOT NULL,
	"actor_user_id" text,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text NOT NULL,
	"reason" text,
	"details" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "suppressions" ADD COLUMN "scope" text DEFAULT 'all' NOT NULL;--> statement-breakpoint
ALTER TABLE "tenant_audit_log" ADD CONSTRAINT "tenant_audit_log_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tenant_audit_log_tenant_target_idx" ON "tenant_audit_log" USING btree ("tenant_id","target_type","target_id");--> statement-breakpoint
ALTER TABLE "suppressions" ADD CONSTRAINT "suppressions_scope_check" CHECK ("suppressions"."scope" in ('all', 'marketing'));--> statement-breakpoint
UPDATE "suppressions" SET "scope" = 'marketing' WHERE "reason" = 'unsubscribe';--> statement-breakpoint
INSERT INTO "suppressions" ("tenant_id", "email", "reason", "scope", "created_at")
SELECT "tenant_id", "email", 'unsubscribe', 'marketing', "unsubscribed_at" FROM "contacts"
WHERE "unsubscribed_at" IS NOT NULL
ON CONFLICT ("tenant_id", "email") DO NOTHING;