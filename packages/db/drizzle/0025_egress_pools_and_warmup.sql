CREATE TABLE "egress_sending_days" (
	"egress" text NOT NULL,
	"day" date NOT NULL,
	CONSTRAINT "egress_sending_days_egress_day_pk" PRIMARY KEY("egress","day")
);
--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "egress_pool" text;