CREATE TABLE "dkim_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"domain_id" uuid NOT NULL,
	"selector" text NOT NULL,
	"public_key" text NOT NULL,
	"private_key_ciphertext" text NOT NULL,
	"encryption_key_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dkim_keys_domain_selector_unique" UNIQUE("domain_id","selector")
);
--> statement-breakpoint
CREATE TABLE "sending_domains" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"return_path_label" text NOT NULL,
	"ownership_token" text,
	"dkim" jsonb NOT NULL,
	"checks" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"failure_reason" text,
	"check_count" integer DEFAULT 0 NOT NULL,
	"verified_at" timestamp with time zone,
	"last_checked_at" timestamp with time zone,
	"next_check_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sending_domains_tenant_name_unique" UNIQUE("tenant_id","name"),
	CONSTRAINT "sending_domains_status_check" CHECK ("sending_domains"."status" in ('pending', 'verified', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "messages" DROP CONSTRAINT "messages_status_check";--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "from_address" text;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "reply_to" text;--> statement-breakpoint
ALTER TABLE "templates" ADD COLUMN "from_address" text;--> statement-breakpoint
ALTER TABLE "templates" ADD COLUMN "reply_to" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "from_address" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "reply_to" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "sending_domain_id" uuid;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "default_from" text;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "default_reply_to" text;--> statement-breakpoint
ALTER TABLE "dkim_keys" ADD CONSTRAINT "dkim_keys_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dkim_keys" ADD CONSTRAINT "dkim_keys_domain_id_sending_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."sending_domains"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sending_domains" ADD CONSTRAINT "sending_domains_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dkim_keys_tenant_idx" ON "dkim_keys" USING btree ("tenant_id");--> statement-breakpoint
CREATE INDEX "sending_domains_name_idx" ON "sending_domains" USING btree ("name");--> statement-breakpoint
CREATE INDEX "sending_domains_next_check_idx" ON "sending_domains" USING btree ("next_check_at") WHERE "sending_domains"."next_check_at" is not null;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_sending_domain_id_sending_domains_id_fk" FOREIGN KEY ("sending_domain_id") REFERENCES "public"."sending_domains"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "messages_sending_domain_open_idx" ON "messages" USING btree ("sending_domain_id") WHERE "messages"."sending_domain_id" is not null and "messages"."status" in ('pending', 'queued', 'sending', 'held');--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_status_check" CHECK ("messages"."status" in ('pending', 'queued', 'sending', 'sent', 'failed', 'suppressed', 'cancelled', 'held'));