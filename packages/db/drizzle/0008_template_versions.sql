CREATE TABLE "template_versions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"template_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"subject" text NOT NULL,
	"html" text,
	"text" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "template_versions_template_version_unique" UNIQUE("template_id","version")
);
--> statement-breakpoint
ALTER TABLE "templates" ALTER COLUMN "html" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "templates" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "template_version" integer;--> statement-breakpoint
ALTER TABLE "template_versions" ADD CONSTRAINT "template_versions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "template_versions" ADD CONSTRAINT "template_versions_template_id_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."templates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "template_versions_tenant_idx" ON "template_versions" USING btree ("tenant_id");--> statement-breakpoint
ALTER TABLE "templates" ADD CONSTRAINT "templates_content_check" CHECK ("templates"."html" is not null or "templates"."text" is not null);--> statement-breakpoint
-- Templates made before versioning get their current content as version 1.
INSERT INTO "template_versions" ("tenant_id", "template_id", "version", "subject", "html", "text", "created_at")
SELECT "tenant_id", "id", "version", "subject", "html", "text", "updated_at" FROM "templates";
