CREATE TABLE "message_attachments" (
	"message_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"tenant_id" uuid NOT NULL,
	"filename" text NOT NULL,
	"content_type" text NOT NULL,
	"content_id" text,
	"size_bytes" integer NOT NULL,
	"content" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "message_attachments_pk" PRIMARY KEY("message_id","position"),
	CONSTRAINT "message_attachments_size_check" CHECK ("message_attachments"."size_bytes" >= 0)
);
--> statement-breakpoint
CREATE TABLE "message_contents" (
	"message_id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"raw" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tenant_usage_days" (
	"tenant_id" uuid NOT NULL,
	"day" date NOT NULL,
	"lane" text NOT NULL,
	"accepted" integer DEFAULT 0 NOT NULL,
	"accepted_bytes" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tenant_usage_days_pk" PRIMARY KEY("tenant_id","day","lane")
);
--> statement-breakpoint
ALTER TABLE "message_events" DROP CONSTRAINT "message_events_type_check";--> statement-breakpoint
ALTER TABLE "messages" DROP CONSTRAINT "messages_status_check";--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "send_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "source" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "size_bytes" integer;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "plan_name" text DEFAULT 'standard' NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "plan_overrides" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "tx_rate_per_sec" integer;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "tx_burst" integer;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "quota_daily" integer;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "quota_monthly" integer;--> statement-breakpoint
ALTER TABLE "message_attachments" ADD CONSTRAINT "message_attachments_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_attachments" ADD CONSTRAINT "message_attachments_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_contents" ADD CONSTRAINT "message_contents_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_contents" ADD CONSTRAINT "message_contents_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_usage_days" ADD CONSTRAINT "tenant_usage_days_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "message_attachments_tenant_idx" ON "message_attachments" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "message_contents_tenant_idx" ON "message_contents" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "messages_scheduled_due_idx" ON "messages" USING btree ("send_at") WHERE "messages"."status" = 'scheduled';--> statement-breakpoint
ALTER TABLE "message_events" ADD CONSTRAINT "message_events_type_check" CHECK ("message_events"."type" in ('accepted', 'queued', 'deferred', 'sent', 'retrying', 'failed', 'bounced', 'complained', 'suppressed', 'unsubscribed', 'opened', 'clicked', 'scheduled', 'cancelled'));--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_status_check" CHECK ("messages"."status" in ('pending', 'scheduled', 'queued', 'sending', 'sent', 'failed', 'suppressed', 'cancelled', 'held', 'bounced', 'complained'));--> statement-breakpoint
ALTER TABLE "tenants" ADD CONSTRAINT "tenants_tx_rate_check" CHECK ("tenants"."tx_rate_per_sec" is null or "tenants"."tx_rate_per_sec" > 0);--> statement-breakpoint
ALTER TABLE "tenants" ADD CONSTRAINT "tenants_tx_burst_check" CHECK ("tenants"."tx_burst" is null or "tenants"."tx_burst" > 0);--> statement-breakpoint
ALTER TABLE "tenants" ADD CONSTRAINT "tenants_quota_daily_check" CHECK ("tenants"."quota_daily" is null or "tenants"."quota_daily" >= 0);--> statement-breakpoint
ALTER TABLE "tenants" ADD CONSTRAINT "tenants_quota_monthly_check" CHECK ("tenants"."quota_monthly" is null or "tenants"."quota_monthly" >= 0);