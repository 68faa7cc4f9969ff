CREATE TABLE "tenant_deferral_counts" (
	"tenant_id" uuid NOT NULL,
	"minute" timestamp with time zone NOT NULL,
	"lane" text NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "tenant_deferral_counts_pk" PRIMARY KEY("tenant_id","minute","lane")
);
--> statement-breakpoint
ALTER TABLE "tenant_deferral_counts" ADD CONSTRAINT "tenant_deferral_counts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tenant_deferral_counts_minute_idx" ON "tenant_deferral_counts" USING btree ("minute");