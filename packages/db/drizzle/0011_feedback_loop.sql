CREATE TABLE "address_bounces" (
	"tenant_id" uuid NOT NULL,
	"email" text NOT NULL,
	"soft_count" integer DEFAULT 0 NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"last_soft_at" timestamp with time zone NOT NULL,
	"last_message_id" uuid,
	CONSTRAINT "address_bounces_pk" PRIMARY KEY("tenant_id","email"),
	CONSTRAINT "address_bounces_email_lowercase_check" CHECK ("address_bounces"."email" = lower("address_bounces"."email"))
);
--> statement-breakpoint
CREATE TABLE "message_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "message_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"type" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"detail" jsonb,
	"dedupe_key" text,
	CONSTRAINT "message_events_type_check" CHECK ("message_events"."type" in ('accepted', 'queued', 'deferred', 'sent', 'retrying', 'failed', 'bounced', 'complained', 'suppressed', 'unsubscribed', 'opened', 'clicked'))
);
--> statement-breakpoint
ALTER TABLE "messages" DROP CONSTRAINT "messages_status_check";--> statement-breakpoint
ALTER TABLE "suppressions" ADD COLUMN "detail" text;--> statement-breakpoint
ALTER TABLE "address_bounces" ADD CONSTRAINT "address_bounces_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_events" ADD CONSTRAINT "message_events_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "message_events_tenant_message_idx" ON "message_events" USING btree ("tenant_id","message_id","id");--> statement-breakpoint
CREATE INDEX "message_events_at_brin" ON "message_events" USING brin ("at");--> statement-breakpoint
CREATE UNIQUE INDEX "message_events_dedupe_unique" ON "message_events" USING btree ("message_id","dedupe_key") WHERE "message_events"."dedupe_key" is not null;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_status_check" CHECK ("messages"."status" in ('pending', 'queued', 'sending', 'sent', 'failed', 'suppressed', 'cancelled', 'held', 'bounced', 'complained'));