CREATE TABLE "reputation_thresholds" (
	"stage" text PRIMARY KEY NOT NULL,
	"hard_bounce_rate" double precision NOT NULL,
	"complaint_rate" double precision NOT NULL,
	"min_sent" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reputation_thresholds_stage_check" CHECK ("reputation_thresholds"."stage" in ('warn', 'slow', 'pause')),
	CONSTRAINT "reputation_thresholds_rates_check" CHECK ("reputation_thresholds"."hard_bounce_rate" > 0 and "reputation_thresholds"."hard_bounce_rate" <= 1 and "reputation_thresholds"."complaint_rate" > 0 and "reputation_thresholds"."complaint_rate" <= 1),
	CONSTRAINT "reputation_thresholds_min_sent_check" CHECK ("reputation_thresholds"."min_sent" > 0)
);
--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "reputation_stage" text DEFAULT 'ok' NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "reputation_reason" text;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "reputation_changed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "reputation_resumed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tenants" ADD CONSTRAINT "tenants_reputation_stage_check" CHECK ("tenants"."reputation_stage" in ('ok', 'warn', 'slow', 'pause'));--> statement-breakpoint
-- The defaults (core DEFAULT_GUARDRAIL_THRESHOLDS): warn at 2 % hard bounces / 0.08 % complaints,
-- slow at 4 % / 0.15 %, pause at 6 % / 0.3 %, each judged from 200 sends in a window.
INSERT INTO "reputation_thresholds" ("stage", "hard_bounce_rate", "complaint_rate", "min_sent") VALUES
	('warn', 0.02, 0.0008, 200),
	('slow', 0.04, 0.0015, 200),
	('pause', 0.06, 0.003, 200);
